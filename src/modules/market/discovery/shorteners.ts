import type { InstrumentField } from "./instrument-fields.js";

/**
 * The field presets of GET /api/v1/instruments/{symbol}/{shortener} (decision 0135). Upstream
 * names only `summary`; the others group the fields a screen shows together.
 */
export const SHORTENERS = {
  summary: [
    "instrumentId",
    "displayname",
    "symbol",
    "instrumentType",
    "internalExchangeName",
    "currentRate",
    "dailyPriceChange",
    "logo50x50",
  ],
  prices: [
    "instrumentId",
    "symbol",
    "currentRate",
    "cvtBid",
    "cvtAsk",
    "internalClosingPrice",
    "dailyPriceChange",
    "weeklyPriceChange",
    "monthlyPriceChange",
  ],
  classification: [
    "instrumentId",
    "symbol",
    "instrumentTypeID",
    "instrumentType",
    "exchangeID",
    "internalExchangeName",
    "internalIndustryId",
    "internalStockIndustryName",
    "industryNameId",
    "sectorNameId",
    "marketCap",
  ],
  logos: ["instrumentId", "symbol", "logo35x35", "logo50x50", "logo150x150"],
} as const satisfies Record<string, readonly InstrumentField[]>;

export type ShortenerName = keyof typeof SHORTENERS;

export const SHORTENER_NAMES = Object.keys(SHORTENERS) as ShortenerName[];

export const isShortener = (name: string): name is ShortenerName => Object.hasOwn(SHORTENERS, name);
