import { systemActor } from "../../../core/actor.js";
import { isoNow } from "../../../core/clock.js";
import type { CloseReason, DomainEvent, PositionClosed } from "../../../core/events.js";
import { type Deps, transact, withActor } from "../../context.js";
import { findInstruments } from "../../market/find-instruments.js";
import { currentQuotes } from "../../market/quotes.js";
import { applyCloseIn, demoLedger, type PositionRow } from "../../trading/demo-ledger.js";
import { UNITS_EPSILON } from "../../trading/math.js";
import { COPY_BATCH } from "./follow-open.js";
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
 * Copies are taken in batches of COPY_BATCH, each batch in one transaction through the one close
 * (`applyClose`), with one CopiesClosed event per batch instead of a PositionClosed per copy
 * (decision 0162), and a turn of the event loop between batches.
 */
export async function followClose(deps: Deps, parentPositionId: number, reason?: CloseReason): Promise<number> {
  const db = deps.db.kysely;
  const parent = await demoLedger(db).findPosition(parentPositionId);
  if (!parent) return 0;
  const last = await mirrorsRepository(db).lastClose(parentPositionId);
  if (!last) return 0;
  const ctx = withActor(deps, systemActor("copy-engine"));
  const symbol = (await findInstruments(ctx, [parent.instrumentId])).get(parent.instrumentId)?.symbol ?? "";
  let closed = 0;
  for (let after = 0; ; ) {
    await new Promise((resolve) => setImmediate(resolve));
    const batch = await transact(deps, async (trx, record) => {
      const children = await mirrorsRepository(trx).openChildrenOf(parentPositionId, after, COPY_BATCH);
      const closes: PositionClosed[] = [];
      // The copies' PositionClosed events become one CopiesClosed; the rest (OrderExecuted) pass.
      const collect = (event: DomainEvent) => (event.type === "PositionClosed" ? closes.push(event) : record(event));
      for (const child of children) {
        const units = Math.min(child.units, child.units - targetUnits(child, parent));
        if (units <= UNITS_EPSILON) continue;
        await applyCloseIn(ctx, trx, collect, child, {
          units,
          rate: last.closeRate,
          reason: reason ?? (last.closeReason as CloseReason),
          symbol,
        });
      }
      if (closes.length > 0) {
        record({ type: "CopiesClosed", parentPositionId, closes, occurredAt: isoNow(deps.clock) });
      }
      return { closed: closes.length, last: children.at(-1)?.positionId, full: children.length === COPY_BATCH };
    });
    closed += batch.closed;
    if (batch.last === undefined || !batch.full) break;
    after = batch.last;
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
