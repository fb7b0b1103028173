import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { invalid } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import { type Ctx, transact } from "../context.js";
import { alertInstrument, directionFrom } from "./alert-target.js";
import { type PriceAlertRow, priceAlertsRepository } from "./price-alerts.repository.js";
import type { PriceAlert } from "./price-alerts.schemas.js";
import { PRICE_ALERTS_WRITE, toPriceAlert } from "./price-alerts.view.js";

export interface CreateAlertInput {
  symbol?: string | undefined;
  instrumentId?: number | undefined;
  targetPrice: number;
}

/** A new alert on an instrument, set above or below its bid; at most PRICE_ALERTS_MAX_PER_USER active. */
export async function createAlert(ctx: Ctx, input: CreateAlertInput): Promise<PriceAlert> {
  const actor = requireUser(ctx.actor, PRICE_ALERTS_WRITE);
  const instrument = await alertInstrument(ctx, input);
  const { direction, bid } = await directionFrom(ctx, instrument, input.targetPrice);
  const max = ctx.config.priceAlerts.maxPerUser;
  const now = isoNow(ctx.clock);
  const row: PriceAlertRow = {
    id: newId(),
    userId: actor.userId,
    instrumentId: instrument.instrumentId,
    symbol: instrument.symbol,
    targetPrice: input.targetPrice,
    direction,
    currentPrice: bid,
    createdAt: now,
    updatedAt: now,
    triggeredAt: null,
    triggeredPrice: null,
  };
  await transact(ctx, async (trx, record) => {
    const repo = priceAlertsRepository(trx);
    await repo.lockOwner(actor.userId);
    if ((await repo.countActive(actor.userId)) >= max) {
      throw invalid("targetPrice", `cannot be set: you already have ${max} active price alerts, the most allowed`);
    }
    await repo.insert(row);
    record({
      type: "PriceAlertSet",
      alertId: row.id,
      userId: row.userId,
      instrumentId: row.instrumentId,
      targetPrice: row.targetPrice,
      direction,
      occurredAt: now,
    });
  });
  return toPriceAlert(row);
}
