import { requireUser } from "../../../core/access.js";
import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { newId } from "../../../core/ids.js";
import type { Ctx } from "../../context.js";
import { findInstruments } from "../../market/find-instruments.js";
import { ORDER_TYPE_CLOSE, TRADE_SCOPES } from "../demo-account.js";
import { entryOrderEnded } from "../entry-orders/entry-watch.js";
import { idempotently } from "../idempotency.js";
import { tradingRepository } from "../trading.repository.js";
import { ordersRepository, STATUS_CANCELLED, STATUS_PENDING } from "./orders.repository.js";

/** Which orders a cancel route reaches: any (v2), orders to open (v1 open, limit) or to close. */
export type CancelScope = "any" | "open" | "close";

const STATUS_NAMES: Record<number, string> = { 1: "executed", 3: "rejected", 4: "expired" };

/**
 * Cancels one of the caller's pending orders. Of a cancel and an execution racing, exactly one
 * changes the order (the guarded leave-pending write); the loser sees the winner's outcome: a
 * cancel after the execution is a 400 (upstream: "cancellation will not be possible"), a cancel of
 * a cancelled order answers 200 again (upstream: idempotent). 404 for an order that is not the
 * caller's or not of the route's kind. At most once per x-request-id.
 */
export async function cancelOrder(
  ctx: Ctx,
  requestId: string,
  orderId: number,
  scope: CancelScope,
): Promise<{ token: string }> {
  const actor = requireUser(ctx.actor, TRADE_SCOPES);
  const notFound = () => new AppError("NotFound", `Order ${orderId} was not found`);
  const before = await tradingRepository(ctx.db.kysely).findOrder(actor.userId, orderId);
  if (!before) throw notFound();
  const isClose = before.orderType === ORDER_TYPE_CLOSE;
  if ((scope === "close" && !isClose) || (scope === "open" && isClose)) throw notFound();
  const symbol = (await findInstruments(ctx, [before.instrumentId])).get(before.instrumentId)?.symbol ?? "";

  return idempotently(
    ctx,
    { userId: actor.userId, requestId, operation: `cancel:${orderId}`, input: { scope } },
    async (trx, record) => {
      const repo = ordersRepository(trx);
      const at = isoNow(ctx.clock);
      if (
        before.statusId === STATUS_PENDING &&
        (await repo.leavePending(orderId, { statusId: STATUS_CANCELLED, at }))
      ) {
        record(entryOrderEnded(before, symbol, "cancelled", at));
        return { token: newId() };
      }
      const now = await repo.findById(orderId);
      if (now?.statusId === STATUS_CANCELLED) return { token: newId() };
      const status = STATUS_NAMES[now?.statusId ?? 1] ?? "processed";
      throw new AppError("BadRequest", `Order ${orderId} was already ${status}; it can no longer be cancelled`);
    },
  );
}
