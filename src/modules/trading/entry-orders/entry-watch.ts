import type { UserActor } from "../../../core/actor.js";
import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import type { DomainEvent } from "../../../core/events.js";
import type { Quote } from "../../../core/market.js";
import { type Deps, transact, withActor } from "../../context.js";
import { findInstruments } from "../../market/find-instruments.js";
import { STATUS_EXECUTED, TRADE_SCOPES } from "../demo-account.js";
import { type OpenOrderInput, openMarketOrder } from "../open-market-order.js";
import { ordersRepository, STATUS_EXPIRED, STATUS_REJECTED } from "../orders/orders.repository.js";
import type { OrderRow } from "../trading.repository.js";
import { EntryIndex, type WatchedEntry } from "./entry-index.js";

/** The entry orders one process watches; every instance keeps its own, and execution is guarded. */
export interface EntryOrderWatch {
  readonly index: EntryIndex;
  /** Orders a follower saw reached on an applied tick, until their end arrives (as the triggers'). */
  readonly firedElsewhere: Set<number>;
  /** When the leader last looked for lapsed orders (ms). */
  lastExpirySweep: number;
}

declare module "../../context.js" {
  interface Deps {
    /** Trading: the resting entry orders by trigger price, checked on every tick. */
    readonly entryOrders: EntryOrderWatch;
  }
}

export const createEntryOrderWatch = (): EntryOrderWatch => ({
  index: new EntryIndex(),
  firedElsewhere: new Set(),
  lastExpirySweep: 0,
});

const EXPIRY_SWEEP_MS = 60_000;

const watched = (row: OrderRow): WatchedEntry => ({
  orderId: row.orderId,
  instrumentId: row.instrumentId,
  isBuy: row.isBuy === 1,
  triggerRate: row.triggerRate ?? row.rate,
});

/**
 * Keeps every instance's entry index in step with the book (`subscribeEverywhere`) and checks it
 * on every tick, as the stop-losses are (../triggers.ts): the instance that ticked (the leader)
 * executes what the price reached; a follower applying the leader's tick only keeps its index in
 * step, and watches again, once it leads, what it saw reached but never saw end.
 */
export function registerEntryOrderWatch(deps: Deps): void {
  const watch = deps.entryOrders;
  const { index, firedElsewhere: pending } = watch;
  deps.metrics.gauge("trading_entry_orders_watched", "Pending entry orders this instance watches", () => index.size);
  deps.bus.subscribeEverywhere("EntryOrderPlaced", (e) =>
    index.add({ orderId: e.orderId, instrumentId: e.instrumentId, isBuy: e.isBuy, triggerRate: e.triggerRate }),
  );
  deps.bus.subscribeEverywhere("EntryOrderEnded", (e) => {
    index.remove(e.orderId);
    pending.delete(e.orderId);
  });
  deps.market.onTick(async (quotes, tick) => {
    if (tick.applied) {
      for (const e of reached(index, quotes)) pending.add(e.orderId);
      return;
    }
    if (pending.size > 0) {
      const ids = [...pending];
      pending.clear();
      for (const id of ids) await rewatch(deps, id).catch(() => pending.add(id));
    }
    for (const entry of reached(index, quotes)) {
      try {
        await executeEntryOrder(deps, entry.orderId);
      } catch (error) {
        deps.log.error({ err: error, orderId: entry.orderId }, "entry order could not execute");
        await rewatch(deps, entry.orderId).catch(() => pending.add(entry.orderId));
      }
    }
    const now = deps.clock.now().getTime();
    if (now - watch.lastExpirySweep >= EXPIRY_SWEEP_MS) {
      watch.lastExpirySweep = now;
      await expireEntryOrders(deps).catch((error) => deps.log.error({ err: error }, "entry order expiry failed"));
    }
  });
}

const NONE_REACHED: readonly WatchedEntry[] = Object.freeze([]);

/** The orders a tick's quotes reach (a tick that reaches none allocates nothing). */
function reached(index: EntryIndex, quotes: readonly Quote[]): readonly WatchedEntry[] {
  if (index.size === 0) return NONE_REACHED;
  let out: WatchedEntry[] | undefined;
  for (const q of quotes) {
    const hits = index.update(q.instrumentId, q.bid, q.ask);
    if (hits.length === 0) continue;
    if (out === undefined) out = [];
    out.push(...hits);
  }
  return out ?? NONE_REACHED;
}

async function rewatch(deps: Deps, orderId: number): Promise<void> {
  const row = await ordersRepository(deps.db.kysely).findById(orderId);
  if (row?.statusId === 0 && row.triggerRate !== null) deps.entryOrders.index.add(watched(row));
}

/** Rebuilds the index from the store (at start). */
export async function loadEntryOrders(deps: Deps): Promise<number> {
  const rows = await ordersRepository(deps.db.kysely).allPending();
  let n = 0;
  for (const row of rows) {
    if (row.triggerRate === null) continue;
    deps.entryOrders.index.add(watched(row));
    n += 1;
  }
  return n;
}

/** The order's terms, as the open it sends to market reads them. */
function openInputOf(row: OrderRow): OpenOrderInput {
  const terms = {
    instrumentId: row.instrumentId,
    isBuy: row.isBuy === 1,
    leverage: row.leverage,
    stopLossRate: row.stopLossRate,
    takeProfitRate: row.takeProfitRate,
    isTslEnabled: row.isTslEnabled === 1,
    isNoStopLoss: row.isNoStopLoss === 1,
    isNoTakeProfit: row.isNoTakeProfit === 1,
  };
  // The size first, the terms spread after it: a field after a spread costs a hidden class per order (0213).
  return row.requestedUnits !== null
    ? { units: row.requestedUnits, ...terms }
    : { amount: row.amountCents / 100, ...terms };
}

/**
 * The order's owner, as the open sees its caller: the open is theirs, made by the book on their
 * behalf with the trading scope they placed it with (decision 0124).
 */
const ownerOf = (row: OrderRow): UserActor => ({
  kind: "user",
  userId: row.userId,
  gcid: row.cid - 20_000_000,
  via: "key-pair",
  credentialId: `entry-order:${row.orderId}`,
  scopes: [TRADE_SCOPES[0]],
  environment: "demo",
});

function ended(
  row: OrderRow,
  symbol: string,
  outcome: "executed" | "cancelled" | "expired" | "rejected",
  at: string,
  extra: { positionId?: number; rate?: number; reason?: string } = {},
): DomainEvent {
  return {
    type: "EntryOrderEnded",
    userId: row.userId,
    orderId: row.orderId,
    instrumentId: row.instrumentId,
    symbol,
    isBuy: row.isBuy === 1,
    triggerRate: row.triggerRate ?? row.rate,
    outcome,
    positionId: extra.positionId ?? null,
    rate: extra.rate ?? null,
    reason: extra.reason ?? null,
    occurredAt: at,
  };
}

export type Execution = "executed" | "rejected" | "expired" | "gone";

/**
 * Sends a reached entry order to market through the same open as a market order, once: the open
 * runs under the idempotency key `entry-order:<id>` and marks the order executed in its own
 * transaction only while it is still pending, so a cancel that won first rolls the open back and
 * a second instance's attempt replays nothing. An open the rules refuse now (cash, a stop-loss the
 * price jumped past) rejects the order, with the reason.
 */
export async function executeEntryOrder(deps: Deps, orderId: number): Promise<Execution> {
  const row = await ordersRepository(deps.db.kysely).findById(orderId);
  if (row?.statusId !== 0) return "gone";
  const symbol = (await findInstruments(deps, [row.instrumentId])).get(row.instrumentId)?.symbol ?? "";
  if (row.expiresAt !== null && row.expiresAt <= isoNow(deps.clock)) {
    return (await endPending(deps, row, symbol, STATUS_EXPIRED, "expired")) ? "expired" : "gone";
  }
  // Set once this call's open claimed the order (a replayed open, another instance's, claims nothing).
  let claimedHere = false;
  try {
    await openMarketOrder(withActor(deps, ownerOf(row)), `entry-order:${orderId}`, openInputOf(row), {
      async onOpened(trx, record, order) {
        const at = order.openDateTime;
        const claimed = await ordersRepository(trx).leavePending(orderId, {
          statusId: STATUS_EXECUTED,
          at,
          positionId: order.positionId,
          amountCents: order.amountCents,
          units: order.units,
          rate: order.rate,
        });
        if (!claimed) throw new AppError("Conflict", `Entry order ${orderId} is no longer pending`);
        record(ended(row, symbol, "executed", at, { positionId: order.positionId, rate: order.rate }));
        claimedHere = true;
      },
    });
    return claimedHere ? "executed" : "gone";
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "Conflict") return "gone";
    if (error.code !== "ValidationFailed") throw error;
    const reason = [error.message, ...(error.problems ?? []).map((p) => `${p.field} ${p.problem}`)].join("; ");
    return (await endPending(deps, row, symbol, STATUS_REJECTED, "rejected", reason)) ? "rejected" : "gone";
  }
}

async function endPending(
  deps: Deps,
  row: OrderRow,
  symbol: string,
  statusId: number,
  outcome: "expired" | "rejected",
  reason?: string,
): Promise<boolean> {
  return transact(deps, async (trx, record) => {
    const at = isoNow(deps.clock);
    const left = await ordersRepository(trx).leavePending(row.orderId, {
      statusId,
      at,
      ...(reason !== undefined ? { errorMessage: reason.slice(0, 1000) } : {}),
    });
    if (left) record(ended(row, symbol, outcome, at, reason !== undefined ? { reason } : {}));
    return left;
  });
}

/** Lapses the pending orders whose time is up (the leader runs it once a minute from the tick). */
export async function expireEntryOrders(deps: Deps): Promise<number> {
  let expired = 0;
  for (;;) {
    const due = await ordersRepository(deps.db.kysely).duePending(isoNow(deps.clock), 500);
    if (due.length === 0) return expired;
    for (const row of due) {
      const symbol = (await findInstruments(deps, [row.instrumentId])).get(row.instrumentId)?.symbol ?? "";
      if (await endPending(deps, row, symbol, STATUS_EXPIRED, "expired")) expired += 1;
    }
    if (due.length < 500) return expired;
  }
}

export { ended as entryOrderEnded };
