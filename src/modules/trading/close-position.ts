import { requireUser } from "../../core/access.js";
import { systemActor } from "../../core/actor.js";
import { isoNow } from "../../core/clock.js";
import { AppError, invalid } from "../../core/errors.js";
import type { CloseReason, DomainEvent } from "../../core/events.js";
import { newId } from "../../core/ids.js";
import { type Ctx, type Deps, transact, withActor } from "../context.js";
import { findInstruments } from "../market/find-instruments.js";
import { assertMarketOpen } from "../market/hours/market-open.js";
import { currentQuotes } from "../market/quotes.js";
import { ORDER_TYPE_CLOSE, STATUS_EXECUTED, TRADE_SCOPES } from "./demo-account.js";
import { idempotently } from "./idempotency.js";
import { marginShare, pnlCents, UNITS_EPSILON } from "./math.js";
import { type PositionRow, type TradingRepository, tradingRepository } from "./trading.repository.js";

export interface ClosePositionInput {
  instrumentId: number;
  /** null or absent = close everything. */
  unitsToDeduct?: number | null | undefined;
}

export interface OrderForClose {
  orderId: number;
  positionId: number;
  instrumentId: number;
  unitsToDeduct: number;
  orderType: number;
  statusId: number;
  cid: number;
  openDateTime: string;
  lastUpdate: string;
  closeRate: number;
  netProfitCents: number;
  fullyClosed: boolean;
}

export interface ClosePositionResult {
  order: OrderForClose;
  token: string;
}

const notFound = (positionId: number) => new AppError("NotFound", `Position ${positionId} was not found`);

/** A client's close at market: a long closes at the bid, a short at the ask. At most once per x-request-id. */
export async function closePosition(
  ctx: Ctx,
  requestId: string,
  positionId: number,
  input: ClosePositionInput,
): Promise<ClosePositionResult> {
  const actor = requireUser(ctx.actor, TRADE_SCOPES);
  // Reads outside the transaction (on SQLite it holds the only connection).
  const before = await tradingRepository(ctx.db.kysely).findPosition(positionId);
  const instrumentId = before?.userId === actor.userId ? before.instrumentId : undefined;
  const quote = instrumentId ? (await currentQuotes(ctx, [instrumentId])).get(instrumentId) : undefined;
  const instrument = instrumentId ? (await findInstruments(ctx, [instrumentId])).get(instrumentId) : undefined;
  const symbol = instrument?.symbol ?? "";

  return idempotently(
    ctx,
    { userId: actor.userId, requestId, operation: `close:${positionId}`, input },
    async (trx, record) => {
      const repo = tradingRepository(trx);
      const position = await repo.findPosition(positionId);
      if (!position || position.userId !== actor.userId || !quote) throw notFound(positionId);
      if (position.status !== "open") {
        throw new AppError("Conflict", `Position ${positionId} is already closed`);
      }
      if (input.instrumentId !== position.instrumentId) {
        throw invalid(
          "instrumentId",
          `must be the instrument of position ${positionId}, ${position.instrumentId}; got ${input.instrumentId}`,
        );
      }
      // A close at market needs an open market, as an open does (decision 0129).
      if (instrument) assertMarketOpen(ctx, instrument);
      // Not in the schema: positivity guards money for every caller, and the upper bound is the position's.
      const requested = input.unitsToDeduct ?? null;
      if (requested !== null && (!Number.isFinite(requested) || requested <= 0)) {
        throw invalid(
          "unitsToDeduct",
          `must be a positive number of units, or null to close everything; got ${requested}`,
        );
      }
      if (requested !== null && requested > position.units * (1 + 1e-12) + UNITS_EPSILON) {
        throw invalid(
          "unitsToDeduct",
          `must be at most ${position.units}, the units the position holds; got ${requested}`,
        );
      }
      const closeRate = position.isBuy === 1 ? quote.bid : quote.ask;
      const closed = await applyClose(ctx, repo, record, position, {
        units: requested ?? position.units,
        rate: closeRate,
        reason: "Manual",
        symbol,
      });
      if (!closed) throw new AppError("Conflict", `Position ${positionId} was closed or changed meanwhile`);
      return closed;
    },
  );
}

/**
 * A trigger's close: the whole position at the trigger rate, through the same guarded write
 * as a client's close. Returns null when the position was no longer open (closed once only).
 */
export async function closeByTrigger(
  deps: Deps,
  positionId: number,
  reason: Exclude<CloseReason, "Manual">,
  rate: number,
): Promise<ClosePositionResult | null> {
  const ctx = withActor(deps, systemActor("market-engine"));
  const before = await tradingRepository(ctx.db.kysely).findPosition(positionId);
  if (before?.status !== "open") return null;
  const symbol = (await findInstruments(ctx, [before.instrumentId])).get(before.instrumentId)?.symbol ?? "";
  return transact(ctx, async (trx, record) => {
    const repo = tradingRepository(trx);
    const position = await repo.findPosition(positionId);
    if (position?.status !== "open") return null;
    return applyClose(ctx, repo, record, position, { units: position.units, rate, reason, symbol });
  });
}

/**
 * The operator's close (the sandbox's "close all positions", decision 0148): the whole position
 * at the market now, a long at the bid and a short at the ask, as a client's close. Null when it
 * was no longer open.
 */
export async function closeAtMarket(deps: Deps, positionId: number): Promise<ClosePositionResult | null> {
  const ctx = withActor(deps, systemActor("sandbox"));
  const before = await tradingRepository(ctx.db.kysely).findPosition(positionId);
  if (before?.status !== "open") return null;
  const quote = (await currentQuotes(ctx, [before.instrumentId])).get(before.instrumentId);
  if (!quote) return null;
  const symbol = (await findInstruments(ctx, [before.instrumentId])).get(before.instrumentId)?.symbol ?? "";
  return transact(ctx, async (trx, record) => {
    const repo = tradingRepository(trx);
    const position = await repo.findPosition(positionId);
    if (position?.status !== "open") return null;
    const rate = position.isBuy === 1 ? quote.bid : quote.ask;
    return applyClose(ctx, repo, record, position, { units: position.units, rate, reason: "Manual", symbol });
  });
}

/**
 * The one close: guarded position write, cash settlement, close order, history row, event. A copy's
 * position (mirrorId set) settles into its mirror's cash, not the account's (copy-trading, 0145).
 */
export async function applyClose(
  deps: Deps,
  repo: TradingRepository,
  record: (event: DomainEvent) => void,
  position: PositionRow,
  close: { units: number; rate: number; reason: CloseReason; symbol: string },
): Promise<ClosePositionResult | null> {
  const now = isoNow(deps.clock);
  const full = close.units >= position.units - UNITS_EPSILON;
  const units = full ? position.units : close.units;
  const margin = marginShare(position.amountCents, position.units, units);
  const isBuy = position.isBuy === 1;
  const netProfitCents = pnlCents(isBuy, units, position.openRate, close.rate, margin);
  const changed = await repo.reducePosition(position.positionId, position.version, {
    amountCents: position.amountCents - margin,
    units: full ? 0 : position.units - units,
    closed: full,
    at: now,
  });
  if (!changed) return null;
  if (position.mirrorId != null)
    await repo.settleMirror(position.mirrorId, margin + netProfitCents, netProfitCents, now);
  else await repo.settle(position.userId, margin + netProfitCents, netProfitCents, now);
  const token = newId();
  const orderId = await repo.insertOrder({
    userId: position.userId,
    cid: position.cid,
    orderType: ORDER_TYPE_CLOSE,
    statusId: STATUS_EXECUTED,
    instrumentId: position.instrumentId,
    isBuy: position.isBuy,
    leverage: position.leverage,
    amountCents: margin,
    units,
    requestedUnits: null,
    rate: close.rate,
    stopLossRate: position.stopLossRate,
    takeProfitRate: position.takeProfitRate,
    isTslEnabled: position.isTslEnabled,
    isNoStopLoss: position.isNoStopLoss,
    isNoTakeProfit: position.isNoTakeProfit,
    positionId: position.positionId,
    unitsToDeduct: units,
    token,
    openDateTime: now,
    lastUpdate: now,
  });
  await repo.insertTrade({
    userId: position.userId,
    positionId: position.positionId,
    orderId,
    openOrderId: position.orderId,
    instrumentId: position.instrumentId,
    isBuy: position.isBuy,
    leverage: position.leverage,
    openRate: position.openRate,
    closeRate: close.rate,
    openDateTime: position.openDateTime,
    closeDateTime: now,
    units,
    investmentCents: margin,
    initialInvestmentCents: position.initialAmountCents,
    netProfitCents,
    stopLossRate: position.stopLossRate,
    takeProfitRate: position.takeProfitRate,
    isTslEnabled: position.isTslEnabled,
    closeReason: close.reason,
  });
  record({
    type: "PositionClosed",
    userId: position.userId,
    positionId: position.positionId,
    instrumentId: position.instrumentId,
    symbol: close.symbol,
    isBuy,
    reason: close.reason,
    fullyClosed: full,
    closeRate: close.rate,
    unitsClosed: units,
    netProfitCents,
    occurredAt: now,
  });
  record({
    type: "OrderExecuted",
    userId: position.userId,
    order: {
      orderId,
      orderType: ORDER_TYPE_CLOSE,
      statusId: STATUS_EXECUTED,
      cid: position.cid,
      instrumentId: position.instrumentId,
      positionId: position.positionId,
      isBuy,
      leverage: position.leverage,
      amountCents: margin,
      units,
      requestedUnits: null,
      rate: close.rate,
      stopLossRate: position.stopLossRate,
      takeProfitRate: position.takeProfitRate,
      isTslEnabled: position.isTslEnabled === 1,
      token,
      openDateTime: now,
      close: { reason: close.reason, netProfitCents, fullyClosed: full },
    },
    occurredAt: now,
  });
  return {
    order: {
      orderId,
      positionId: position.positionId,
      instrumentId: position.instrumentId,
      unitsToDeduct: units,
      orderType: ORDER_TYPE_CLOSE,
      statusId: STATUS_EXECUTED,
      cid: position.cid,
      openDateTime: now,
      lastUpdate: now,
      closeRate: close.rate,
      netProfitCents,
      fullyClosed: full,
    },
    token,
  };
}
