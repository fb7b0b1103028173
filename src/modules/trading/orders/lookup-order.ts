import { requireUser } from "../../../core/access.js";
import { AppError, validationFailed } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { findInstruments } from "../../market/find-instruments.js";
import { type SettlementType, settlementOf } from "../costs/fee-schedule.js";
import { ORDER_TYPE_CLOSE, ORDER_TYPE_OPEN, READ_SCOPES } from "../demo-account.js";
import { type OrderRow, type PositionRow, tradingRepository } from "../trading.repository.js";
import { ordersRepository } from "./orders.repository.js";

export interface OrderLookup {
  order: OrderRow;
  symbol: string;
  /** REAL or CFD, as eligibility and costs name it for this order (decision 0131). */
  settlementType: SettlementType;
  gcid: number;
  /** The position the order opened or closed (none while an entry order rests, or when it never executed). */
  position: PositionRow | undefined;
  /** For an executed entry order: the market order it sent (it opened the position). */
  openOrder: OrderRow | undefined;
}

/**
 * One of the caller's orders, by id or by the x-request-id it was placed with (exactly one), with
 * the position it opened or closed: v1 and v2 orders alike (one book).
 */
export async function lookupOrder(
  ctx: Ctx,
  by: { orderId?: number | undefined; referenceId?: string | undefined },
): Promise<OrderLookup> {
  const actor = requireUser(ctx.actor, READ_SCOPES);
  if ((by.orderId === undefined) === (by.referenceId === undefined)) {
    throw validationFailed([
      by.orderId === undefined
        ? { field: "orderId", problem: "is required unless {referenceId} is given: give exactly one of them" }
        : { field: "referenceId", problem: "must be absent when {orderId} is given: give exactly one of them" },
    ]);
  }
  const repo = tradingRepository(ctx.db.kysely);
  const order =
    by.orderId !== undefined
      ? await repo.findOrder(actor.userId, by.orderId)
      : await ordersRepository(ctx.db.kysely).findByReference(actor.userId, by.referenceId!);
  if (!order) {
    throw new AppError(
      "NotFound",
      by.orderId !== undefined ? `Order ${by.orderId} was not found` : `No order has reference ${by.referenceId}`,
    );
  }
  // An open order's position has the order's id (decision 0046); close and executed entry orders name it.
  const positionId = order.positionId ?? (order.orderType === ORDER_TYPE_OPEN ? order.orderId : null);
  const position = positionId === null ? undefined : await repo.findPosition(positionId);
  const openOrder =
    position && order.orderType !== ORDER_TYPE_OPEN && order.orderType !== ORDER_TYPE_CLOSE
      ? await repo.findOrder(actor.userId, position.orderId)
      : undefined;
  const instrument = (await findInstruments(ctx, [order.instrumentId])).get(order.instrumentId);
  const settlementType = settlementOf(instrument?.assetTypeId ?? 0, order.isBuy === 1, order.leverage);
  return { order, symbol: instrument?.symbol ?? "", settlementType, gcid: actor.gcid, position, openOrder };
}
