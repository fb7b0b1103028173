import { changePct } from "../reference-data/closing-prices.js";
import type { PricedSnapshot } from "../reference-data/get-closing-prices.js";
import {
  EXCHANGE_DESCRIPTIONS,
  INSTRUMENT_PROFILES,
  STOCK_INDUSTRIES,
  type StockIndustryId,
} from "../reference-data/reference-data.js";

export type FieldType = "integer" | "number" | "string" | "boolean";

/** A value of an `Instrument` field; absent when the catalog has no data for it. */
export type FieldValue = number | string | boolean;

/** An `Instrument` as the Asset Explorer serves it: field name → value (absent fields are left out). */
export type InstrumentRecord = Record<string, FieldValue>;

/**
 * The `Instrument` fields this catalog can fill (decision 0135), with their types, in the order
 * upstream's schema lists them; `marketCap` (which upstream's filter examples use) comes last.
 */
export const INSTRUMENT_FIELDS = {
  instrumentId: "integer",
  displayname: "string",
  instrumentTypeID: "integer",
  instrumentType: "string",
  exchangeID: "integer",
  symbol: "string",
  isOpen: "boolean",
  internalAssetClassId: "integer",
  internalInstrumentDisplayName: "string",
  isInternalInstrument: "boolean",
  internalSymbolFull: "string",
  isHiddenFromClient: "boolean",
  internalInstrumentId: "integer",
  internalExchangeId: "integer",
  internalExchangeName: "string",
  internalAssetClassName: "string",
  logo35x35: "string",
  logo50x50: "string",
  logo150x150: "string",
  dailyPriceChange: "number",
  absDailyPriceChange: "number",
  weeklyPriceChange: "number",
  monthlyPriceChange: "number",
  isDelisted: "boolean",
  isCurrentlyTradable: "boolean",
  isExchangeOpen: "boolean",
  internalClosingPrice: "number",
  isActiveInPlatform: "boolean",
  isBuyEnabled: "boolean",
  currentRate: "number",
  cvtBid: "number",
  cvtAsk: "number",
  cvtBiNoSpread: "number",
  cvtAskNoSpread: "number",
  internalIndustryId: "integer",
  internalStockIndustryName: "string",
  industryNameId: "integer",
  sectorNameId: "integer",
  marketCap: "number",
} as const satisfies Record<string, FieldType>;

export type InstrumentField = keyof typeof INSTRUMENT_FIELDS;

export const FIELD_NAMES = Object.keys(INSTRUMENT_FIELDS) as InstrumentField[];

const BY_LOWER = new Map<string, InstrumentField>(FIELD_NAMES.map((f) => [f.toLowerCase(), f]));

/** The field a client names, in any case (`displayName` is upstream's `displayname`); undefined if none. */
export const fieldNamed = (name: string): InstrumentField | undefined => BY_LOWER.get(name.trim().toLowerCase());

const defined = (entries: [string, FieldValue | undefined][]): InstrumentRecord =>
  Object.fromEntries(entries.filter((e): e is [string, FieldValue] => e[1] !== undefined));

/** An instrument's every field this catalog can fill, from its catalog entry, quote and closes. */
export function toInstrumentRecord({ instrument: i, quote, closes }: PricedSnapshot): InstrumentRecord {
  const profile = INSTRUMENT_PROFILES[i.instrumentId];
  const industryId: StockIndustryId | undefined = profile?.industryId;
  const daily = changePct(quote?.mid, closes.daily);
  const exchangeName = EXCHANGE_DESCRIPTIONS[i.exchangeId];
  return defined([
    ["instrumentId", i.instrumentId],
    ["displayname", i.displayName],
    ["instrumentTypeID", i.assetTypeId],
    ["instrumentType", i.assetType],
    ["exchangeID", i.exchangeId],
    ["symbol", i.symbol],
    // The simulated market never closes.
    ["isOpen", true],
    ["internalAssetClassId", i.assetTypeId],
    ["internalInstrumentDisplayName", i.displayName],
    ["isInternalInstrument", false],
    ["internalSymbolFull", i.symbol],
    ["isHiddenFromClient", false],
    ["internalInstrumentId", i.instrumentId],
    ["internalExchangeId", i.exchangeId],
    ["internalExchangeName", exchangeName],
    ["internalAssetClassName", i.assetType],
    ["logo35x35", i.avatar.small],
    ["logo50x50", i.avatar.medium],
    ["logo150x150", i.avatar.large],
    ["dailyPriceChange", daily],
    ["absDailyPriceChange", daily === undefined ? undefined : Math.abs(daily)],
    ["weeklyPriceChange", changePct(quote?.mid, closes.weekly)],
    ["monthlyPriceChange", changePct(quote?.mid, closes.monthly)],
    ["isDelisted", false],
    ["isCurrentlyTradable", true],
    ["isExchangeOpen", true],
    ["internalClosingPrice", closes.daily.price > 0 ? closes.daily.price : undefined],
    ["isActiveInPlatform", true],
    ["isBuyEnabled", true],
    ["currentRate", quote?.mid],
    // Every instrument is quoted in US dollars here (the rates' conversion rates are 1).
    ["cvtBid", quote?.bid],
    ["cvtAsk", quote?.ask],
    ["cvtBiNoSpread", quote?.mid],
    ["cvtAskNoSpread", quote?.mid],
    ["internalIndustryId", industryId],
    ["internalStockIndustryName", industryId === undefined ? undefined : STOCK_INDUSTRIES[industryId]],
    ["industryNameId", profile?.industryNameId],
    ["sectorNameId", industryId],
    ["marketCap", profile?.marketCap],
  ]);
}
