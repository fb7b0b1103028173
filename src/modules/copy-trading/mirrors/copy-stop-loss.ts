import { systemActor } from "../../../core/actor.js";
import { type Deps, withActor } from "../../context.js";
import { currentQuotes } from "../../market/quotes.js";
import { pnlCents } from "../../trading/math.js";
import { ACTIVE, mirrorsRepository, PAUSED } from "./mirrors.repository.js";
import { stopMirror } from "./stop-mirror.js";

/**
 * The copy stop-loss: a copy whose value at current prices (cash + margin + unrealised P/L of its
 * positions) is at or below its floor is stopped (every copy closed at market, the rest returned).
 * Returns the copies stopped.
 */
export async function enforceCopyStopLosses(deps: Deps): Promise<number> {
  const db = deps.db.kysely;
  const guarded = await db
    .selectFrom("copyMirrors")
    .select("mirrorId")
    .where("stopLossCents", ">", 0)
    .where("status", "in", [ACTIVE, PAUSED])
    .execute();
  let stopped = 0;
  const ctx = withActor(deps, systemActor("copy-engine"));
  for (const { mirrorId } of guarded) {
    const repo = mirrorsRepository(db);
    const mirror = await repo.findMirror(mirrorId);
    if (!mirror) continue;
    const positions = await repo.openPositionsOfMirror(mirrorId);
    const quotes = await currentQuotes(ctx, [...new Set(positions.map((p) => p.instrumentId))]);
    let value = mirror.availableCashCents;
    for (const p of positions) {
      const q = quotes.get(p.instrumentId);
      const rate = q ? (p.isBuy === 1 ? q.bid : q.ask) : p.openRate;
      value += p.amountCents + pnlCents(p.isBuy === 1, p.units, p.openRate, rate, p.amountCents);
    }
    if (value <= mirror.stopLossCents) {
      await stopMirror(deps, mirrorId);
      stopped++;
    }
  }
  return stopped;
}
