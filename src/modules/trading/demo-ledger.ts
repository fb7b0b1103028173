import type { UserActor } from "../../core/actor.js";
import type { CloseReason, DomainEvent } from "../../core/events.js";
import type { Executor } from "../../infra/db/executor.js";
import type { Deps } from "../context.js";
import { batchInserts } from "./batch-inserts.repository.js";
import { applyClose } from "./close-position.js";
import { demoAccountOf } from "./demo-account.js";
import { type PositionRow, tradingRepository } from "./trading.repository.js";

export type { AccountRow, PositionRow } from "./trading.repository.js";

/**
 * What another module (copy trading: its copies' opens, settlements and stops) may do to demo
 * accounts and positions, inside its own transaction: the guarded debit, the settlement, the order
 * row, reads. Positions are closed only through `applyClose` (close-position.ts).
 */
export function demoLedger(db: Executor) {
  const repo = tradingRepository(db);
  const batch = batchInserts(db);
  return {
    /** Many orders in few statements: ids by token (copy opens, decision 0162). */
    insertOrders: batch.insertOrders,
    /** Many positions in few statements, with their mirror and copied position. */
    insertPositions: batch.insertPositions,
    findAccount: repo.findAccount,
    createAccountIfMissing: repo.createAccountIfMissing,
    debit: repo.debit,
    settle: repo.settle,
    insertOrder: repo.insertOrder,
    findPosition: repo.findPosition,
    openPositionsOf: repo.openPositionsOf,
  };
}

/** The one close (close-position.ts's applyClose) inside the caller's transaction. */
export function applyCloseIn(
  deps: Deps,
  db: Executor,
  record: (event: DomainEvent) => void,
  position: PositionRow,
  close: { units: number; rate: number; reason: CloseReason; symbol: string },
) {
  return applyClose(deps, tradingRepository(db), record, position, close);
}

/** The user's demo account, opened on first use, inside the caller's transaction. */
export function demoAccountIn(deps: Deps, db: Executor, actor: UserActor) {
  return demoAccountOf(deps, tradingRepository(db), actor);
}
