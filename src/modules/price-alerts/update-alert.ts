import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { notFound } from "../../core/errors.js";
import { type Ctx, transact } from "../context.js";
import { alertInstrument, directionFrom } from "./alert-target.js";
import { priceAlertsRepository } from "./price-alerts.repository.js";
import type { PriceAlert } from "./price-alerts.schemas.js";
import { PRICE_ALERTS_WRITE, toPriceAlert } from "./price-alerts.view.js";

/** A new target for one of the caller's active alerts, set again from the bid now. */
export async function updateAlert(ctx: Ctx, alertId: string, targetPrice: number): Promise<PriceAlert> {
  const actor = requireUser(ctx.actor, PRICE_ALERTS_WRITE);
  const gone = () => notFound(`The active price alert ${alertId}`);
  const existing = await priceAlertsRepository(ctx.db.kysely).findActive(alertId, actor.userId);
  if (!existing) throw gone();
  const instrument = await alertInstrument(ctx, { instrumentId: existing.instrumentId });
  const { direction, bid } = await directionFrom(ctx, instrument, targetPrice);
  const change = { targetPrice, direction, currentPrice: bid, updatedAt: isoNow(ctx.clock) };
  await transact(ctx, async (trx, record) => {
    // It may have fired or been deleted since it was read.
    if (!(await priceAlertsRepository(trx).retarget(alertId, change))) throw gone();
    record({
      type: "PriceAlertSet",
      alertId,
      userId: actor.userId,
      instrumentId: existing.instrumentId,
      targetPrice,
      direction,
      occurredAt: change.updatedAt,
    });
  });
  return toPriceAlert({ ...existing, ...change });
}
