import { requireUser } from "../../core/access.js";
import type { Ctx } from "../context.js";
import { priceAlertsRepository } from "./price-alerts.repository.js";
import type { PriceAlert } from "./price-alerts.schemas.js";
import { PRICE_ALERTS_READ, toPriceAlert } from "./price-alerts.view.js";

/** The caller's active alerts, newest first; a fired alert is no longer listed. */
export async function listAlerts(ctx: Ctx): Promise<PriceAlert[]> {
  const actor = requireUser(ctx.actor, PRICE_ALERTS_READ);
  return (await priceAlertsRepository(ctx.db.kysely).listActive(actor.userId)).map(toPriceAlert);
}
