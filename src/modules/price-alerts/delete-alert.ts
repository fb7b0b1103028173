import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { notFound } from "../../core/errors.js";
import { type Ctx, transact } from "../context.js";
import { priceAlertsRepository } from "./price-alerts.repository.js";
import { PRICE_ALERTS_WRITE } from "./price-alerts.view.js";

/** Deletes one of the caller's active alerts; another user's, a fired or an unknown one is 404. */
export async function deleteAlert(ctx: Ctx, alertId: string): Promise<void> {
  const actor = requireUser(ctx.actor, PRICE_ALERTS_WRITE);
  await transact(ctx, async (trx, record) => {
    if (!(await priceAlertsRepository(trx).deleteActive(alertId, actor.userId))) {
      throw notFound(`The active price alert ${alertId}`);
    }
    record({ type: "PriceAlertDeleted", alertId, userId: actor.userId, occurredAt: isoNow(ctx.clock) });
  });
}
