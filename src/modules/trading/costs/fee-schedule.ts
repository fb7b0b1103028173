/**
 * The demo account's fee schedule (decision 0130): what each asset class pays to hold a CFD
 * position overnight, and the UK stamp duty (SDRT) on real UK shares. Rates are annual
 * percentages of the position's exposure, charged 1/365 per night at the daily rollover.
 */
import { ASSET_CLASSES, EXCHANGES } from "../../market/catalog.js";

export interface OvernightRates {
  /** Annual % of the exposure a long CFD pays. */
  longAnnualPct: number;
  /** Annual % of the exposure a short CFD pays. */
  shortAnnualPct: number;
  /** Whether Friday's rollover charges three nights (the weekend): every class but crypto, which trades daily. */
  weekendTriple: boolean;
}

const BY_TYPE_ID = new Map<number, OvernightRates>([
  [ASSET_CLASSES.currencies.assetTypeId, { longAnnualPct: 3, shortAnnualPct: 3, weekendTriple: true }],
  [ASSET_CLASSES.commodities.assetTypeId, { longAnnualPct: 5, shortAnnualPct: 5, weekendTriple: true }],
  [ASSET_CLASSES.indices.assetTypeId, { longAnnualPct: 6, shortAnnualPct: 3, weekendTriple: true }],
  [ASSET_CLASSES.stocks.assetTypeId, { longAnnualPct: 6.4, shortAnnualPct: 2.9, weekendTriple: true }],
  [ASSET_CLASSES.etf.assetTypeId, { longAnnualPct: 6.4, shortAnnualPct: 2.9, weekendTriple: true }],
  [ASSET_CLASSES.crypto.assetTypeId, { longAnnualPct: 10, shortAnnualPct: 10, weekendTriple: false }],
]);

const DEFAULT_RATES: OvernightRates = { longAnnualPct: 6.4, shortAnnualPct: 2.9, weekendTriple: true };

export const overnightRatesOf = (assetTypeId: number): OvernightRates => BY_TYPE_ID.get(assetTypeId) ?? DEFAULT_RATES;

/** Classes that can be held as the real asset (a non-leveraged long); the others are always CFDs. */
const REAL_CAPABLE = new Set<number>([
  ASSET_CLASSES.stocks.assetTypeId,
  ASSET_CLASSES.etf.assetTypeId,
  ASSET_CLASSES.crypto.assetTypeId,
]);

export type SettlementType = "CFD" | "REAL";

/**
 * How a position settles, as upstream decides it: a non-leveraged long of a stock, ETF or coin
 * is the real asset; anything leveraged or short, and every currency, commodity and index, is a CFD.
 */
export function settlementOf(assetTypeId: number, isBuy: boolean, leverage: number): SettlementType {
  return REAL_CAPABLE.has(assetTypeId) && isBuy && leverage === 1 ? "REAL" : "CFD";
}

/** SDRT: 0.5% of the consideration on buying real UK shares (London Stock Exchange). */
export const SDRT_BPS = 50;

export function sdrtApplies(exchangeId: number, assetTypeId: number, isBuy: boolean, leverage: number): boolean {
  return exchangeId === EXCHANGES.lse && settlementOf(assetTypeId, isBuy, leverage) === "REAL";
}
