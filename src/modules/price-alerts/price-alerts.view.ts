import type { PriceAlertRow } from "./price-alerts.repository.js";
import type { PriceAlert } from "./price-alerts.schemas.js";

export const PRICE_ALERTS_READ = ["price-alerts:read", "price-alerts:write"] as const;
export const PRICE_ALERTS_WRITE = ["price-alerts:write"] as const;

export const toPriceAlert = (row: PriceAlertRow): PriceAlert => ({
  alertId: row.id,
  instrumentId: row.instrumentId,
  symbol: row.symbol,
  targetPrice: row.targetPrice,
  currentPrice: row.currentPrice,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});
