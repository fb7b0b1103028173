import { requireUser } from "../../core/access.js";
import type { UserActor } from "../../core/actor.js";
import { AppError } from "../../core/errors.js";
import type { Quote } from "../../core/market.js";
import type { Ctx, Deps } from "../context.js";
import { currentQuotes } from "../market/quotes.js";
import { overnightFeesRepository } from "./costs/overnight-fees.repository.js";
import { demoAccountOf, ORDER_TYPE_OPEN, READ_SCOPES } from "./demo-account.js";
import { pnlCents } from "./math.js";
import { ordersRepository } from "./orders/orders.repository.js";
import {
  type AccountRow,
  type OrderRow,
  type PositionRow,
  type TradeRow,
  type TradingRepository,
  tradingRepository,
} from "./trading.repository.js";
import { currentStopOf } from "./triggers.js";

export interface PositionValue {
  position: PositionRow;
  quote: Quote | undefined;
  /** The stop-loss in force now (a trailing stop moves); 0 = none. */
  stopLossRate: number;
  /** Close-side price now: the bid for a long, the ask for a short. */
  closeRate: number;
  unrealizedPnlCents: number;
  /** Overnight and weekend fees charged so far (already taken from the cash), cents. */
  feesCents: number;
  /** SDRT paid when it opened, cents. */
  taxesCents: number;
}

export type CopyMirrorRow = Awaited<ReturnType<TradingRepository["copyMirrorsOf"]>>[number];

export interface MirrorValue {
  mirror: CopyMirrorRow;
  positions: PositionValue[];
}

export interface Portfolio {
  account: AccountRow;
  /** The caller's own positions (not a copy's). */
  positions: PositionValue[];
  /** The caller's copies with their positions (copy trading). */
  mirrors: MirrorValue[];
  /** Margin of every open position, the copies' included. */
  investedCents: number;
  unrealizedPnlCents: number;
  /** Cash the copies hold, not yet in a position. */
  mirrorCashCents: number;
  /** Pending entry orders, oldest first. */
  orders: OrderRow[];
}

/** The caller's demo account with every open position valued at the current close-side price. */
export async function getPortfolio(ctx: Ctx): Promise<Portfolio> {
  const actor = requireUser(ctx.actor, READ_SCOPES);
  const repo = tradingRepository(ctx.db.kysely);
  const account = await demoAccountOf(ctx, repo, actor);
  const rows = await repo.openPositionsOf(actor.userId);
  const quotes = await currentQuotes(ctx, [...new Set(rows.map((r) => r.instrumentId))]);
  const fees = await overnightFeesRepository(ctx.db.kysely).totals(rows.map((r) => r.positionId));
  const taxes = await overnightFeesRepository(ctx.db.kysely).taxes(rows.map((r) => r.positionId));
  const positions = rows.map((position): PositionValue => {
    const quote = quotes.get(position.instrumentId);
    const isBuy = position.isBuy === 1;
    const closeRate = quote ? (isBuy ? quote.bid : quote.ask) : position.openRate;
    return {
      position,
      quote,
      stopLossRate: currentStopOf(ctx, position),
      closeRate,
      unrealizedPnlCents: pnlCents(isBuy, position.units, position.openRate, closeRate, position.amountCents),
      feesCents: fees.get(position.positionId) ?? 0,
      taxesCents: taxes.get(position.positionId) ?? 0,
    };
  });
  const mirrors = await repo.copyMirrorsOf(actor.userId);
  return {
    account,
    positions: positions.filter((p) => p.position.mirrorId == null),
    mirrors: mirrors.map((mirror) => ({
      mirror,
      positions: positions.filter((p) => p.position.mirrorId === mirror.mirrorId),
    })),
    investedCents: positions.reduce((s, p) => s + p.position.amountCents, 0),
    unrealizedPnlCents: positions.reduce((s, p) => s + p.unrealizedPnlCents, 0),
    mirrorCashCents: mirrors.reduce((s, m) => s + m.availableCashCents, 0),
    orders: await ordersRepository(ctx.db.kysely).pendingOf(actor.userId),
  };
}

/**
 * Cash plus the money in open positions at their opening (no unrealized P/L): the realized equity
 * club tiers are ranked by. For other modules; the caller has checked the actor's scopes.
 */
export async function realizedEquityCents(deps: Deps, actor: UserActor): Promise<number> {
  const repo = tradingRepository(deps.db.kysely);
  const account = await demoAccountOf(deps, repo, actor);
  const positions = await repo.openPositionsOf(actor.userId);
  return account.cashCents + positions.reduce((sum, p) => sum + p.amountCents, 0);
}

export interface OrderInfo {
  order: OrderRow;
  position: PositionRow | undefined;
}

/** One of the caller's orders (open or close) with the position it opened or closed. */
export async function getOrder(ctx: Ctx, orderId: number): Promise<OrderInfo> {
  const actor = requireUser(ctx.actor, READ_SCOPES);
  const repo = tradingRepository(ctx.db.kysely);
  const order = await repo.findOrder(actor.userId, orderId);
  if (!order) throw new AppError("NotFound", `Order ${orderId} was not found`);
  // An open order's position has the order's id (decision 0046); a close order names its position.
  const positionId = order.positionId ?? (order.orderType === ORDER_TYPE_OPEN ? order.orderId : null);
  const position = positionId === null ? undefined : await repo.findPosition(positionId);
  return { order, position };
}

/** Closed trades (each close, full or partial, is one), newest first, closed on or after `minDate`. */
export async function getTradeHistory(
  ctx: Ctx,
  query: { minDate?: string | undefined; page: number; pageSize: number },
): Promise<(TradeRow & { feesCents: number })[]> {
  const actor = requireUser(ctx.actor, READ_SCOPES);
  const rows = await tradingRepository(ctx.db.kysely).tradesOf(
    actor.userId,
    query.minDate,
    query.pageSize,
    (query.page - 1) * query.pageSize,
  );
  // A position's overnight fees show on its newest close (rows are newest first).
  const fees = await overnightFeesRepository(ctx.db.kysely).totals([...new Set(rows.map((r) => r.positionId))]);
  const shown = new Set<number>();
  return rows.map((r) => {
    const first = !shown.has(r.positionId);
    shown.add(r.positionId);
    // Spread last: a field after a spread costs a hidden class per row (decision 0213).
    return { feesCents: first ? (fees.get(r.positionId) ?? 0) : 0, ...r };
  });
}
