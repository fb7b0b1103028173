import { systemActor } from "../../../core/actor.js";
import type { CloseReason } from "../../../core/events.js";
import { type Deps, transact, withActor } from "../../context.js";
import { findInstruments } from "../../market/find-instruments.js";
import { currentQuotes } from "../../market/quotes.js";
import { applyCloseIn, demoLedger, type PositionRow } from "../../trading/demo-ledger.js";
import { UNITS_EPSILON } from "../../trading/math.js";
import { mirrorsRepository } from "./mirrors.repository.js";

/**
 * The units a copy should hold now: the same fraction of what it opened with as its parent holds of
 * its own (0 once the parent is closed).
 */
export function targetUnits(child: PositionRow, parent: PositionRow): number {
  if (parent.status !== "open" || parent.initialUnits <= 0) return 0;
  return child.initialUnits * (parent.units / parent.initialUnits);
}

/**
 * The copies of `parentPositionId` close what their parent closed, at the parent's close rate and
 * for its reason (a stop-loss, take-profit or trailing stop of the parent closes the copies too).
 * State, not the event, decides how much: a copy already in step is left alone, so a retry, the
 * sweep or another instance never closes twice (and the position's version guards the write).
 */
export async function followClose(deps: Deps, parentPositionId: number, reason?: CloseReason): Promise<number> {
  const db = deps.db.kysely;
  const children = await mirrorsRepository(db).openChildrenOf(parentPositionId);
  if (children.length === 0) return 0;
  const parent = await demoLedger(db).findPosition(parentPositionId);
  if (!parent) return 0;
  const last = await mirrorsRepository(db).lastClose(parentPositionId);
  if (!last) return 0;
  const ctx = withActor(deps, systemActor("copy-engine"));
  const symbol = (await findInstruments(ctx, [parent.instrumentId])).get(parent.instrumentId)?.symbol ?? "";
  let closed = 0;
  for (const child of children) {
    const excess = child.units - targetUnits(child, parent);
    if (excess <= UNITS_EPSILON) continue;
    const done = await transact(deps, async (trx, record) => {
      const repo = demoLedger(trx);
      const fresh = await repo.findPosition(child.positionId);
      if (fresh?.status !== "open") return null;
      const units = Math.min(fresh.units, fresh.units - targetUnits(fresh, parent));
      if (units <= UNITS_EPSILON) return null;
      return applyCloseIn(ctx, trx, record, fresh, {
        units,
        rate: last.closeRate,
        reason: reason ?? (last.closeReason as CloseReason),
        symbol,
      });
    });
    if (done) closed++;
  }
  return closed;
}

/** Closes one open copy in full at market (the copy stopped): long at the bid, short at the ask. */
export async function closeCopyAtMarket(deps: Deps, position: PositionRow): Promise<boolean> {
  const ctx = withActor(deps, systemActor("copy-engine"));
  const quote = (await currentQuotes(ctx, [position.instrumentId])).get(position.instrumentId);
  const symbol = (await findInstruments(ctx, [position.instrumentId])).get(position.instrumentId)?.symbol ?? "";
  const rate = quote ? (position.isBuy === 1 ? quote.bid : quote.ask) : position.openRate;
  const done = await transact(deps, async (trx, record) => {
    const repo = demoLedger(trx);
    const fresh = await repo.findPosition(position.positionId);
    if (fresh?.status !== "open") return null;
    return applyCloseIn(ctx, trx, record, fresh, { units: fresh.units, rate, reason: "Manual", symbol });
  });
  return done !== null;
}
