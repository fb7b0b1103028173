import { requireUser } from "../../core/access.js";
import type { Actor } from "../../core/actor.js";
import { AppError, invalid } from "../../core/errors.js";
import type { Candle, CandleInterval, Quote } from "../../core/market.js";
import type { Ctx } from "../context.js";
import { type InstrumentDetail, listInstruments, searchInstrumentsPage } from "./find-instruments.js";
import { currentQuotes } from "./quotes.js";

/**
 * Market data is public information, but every API call is authenticated: any scope that
 * trades or watches instruments admits it (docs/decisions/0042-market-data-scopes.md).
 */
export const MARKET_DATA_SCOPES = [
  "trade.demo:read",
  "trade.demo:write",
  "demo:read",
  "demo:write",
  "trade.real:read",
  "trade.real:write",
  "real:read",
  "real:write",
  "watchlist:read",
  "watchlist:write",
] as const;

export const MAX_RATE_IDS = 100;

const caller = (actor: Actor) => requireUser(actor, MARKET_DATA_SCOPES);

export interface RatesResult {
  rates: Quote[];
  notFoundInstrumentIds: number[];
}

/** Current bid/ask of up to 100 instruments, in the order asked; unknown ids are reported, not fatal. */
export async function getRates(ctx: Ctx, ids: readonly number[]): Promise<RatesResult> {
  caller(ctx.actor);
  const unique = [...new Set(ids)];
  // The schema's pattern asks for at least one id; it cannot count distinct ones.
  if (unique.length > MAX_RATE_IDS) {
    throw invalid("instrumentIds", `must list at most ${MAX_RATE_IDS} distinct ids; got ${unique.length}`);
  }
  const quotes = await currentQuotes(ctx, unique);
  return {
    rates: unique.flatMap((id) => (quotes.has(id) ? [quotes.get(id)!] : [])),
    notFoundInstrumentIds: unique.filter((id) => !quotes.has(id)),
  };
}

export interface InstrumentFilter {
  instrumentIds?: number[] | undefined;
  exchangeIds?: number[] | undefined;
  instrumentTypeIds?: number[] | undefined;
}

/** Catalog entries matching every given filter (a filter left out matches all). */
export async function getInstruments(ctx: Ctx, filter: InstrumentFilter): Promise<InstrumentDetail[]> {
  caller(ctx.actor);
  const within = (list: number[] | undefined, value: number) => !list || list.length === 0 || list.includes(value);
  return (await listInstruments(ctx)).filter(
    (i) =>
      within(filter.instrumentIds, i.instrumentId) &&
      within(filter.exchangeIds, i.exchangeId) &&
      within(filter.instrumentTypeIds, i.assetTypeId),
  );
}

export interface SearchResult {
  page: number;
  pageSize: number;
  totalItems: number;
  items: { instrument: InstrumentDetail; quote: Quote | undefined }[];
}

export async function searchMarket(
  ctx: Ctx,
  text: string,
  pageSize: number,
  pageNumber: number,
): Promise<SearchResult> {
  caller(ctx.actor);
  const { items, total } = await searchInstrumentsPage(ctx, text, pageSize, pageNumber);
  const quotes = await currentQuotes(
    ctx,
    items.map((i) => i.instrumentId),
  );
  return {
    page: pageNumber,
    pageSize,
    totalItems: total,
    items: items.map((instrument) => ({ instrument, quote: quotes.get(instrument.instrumentId) })),
  };
}

export interface CandlesResult {
  interval: CandleInterval;
  instrumentId: number;
  candles: Candle[];
}

/** Candles folded from the ticks this process has seen (at most 1000 per interval). */
export async function getCandles(
  ctx: Ctx,
  instrumentId: number,
  interval: CandleInterval,
  count: number,
  direction: "asc" | "desc",
): Promise<CandlesResult> {
  caller(ctx.actor);
  const quotes = await currentQuotes(ctx, [instrumentId]);
  if (!quotes.has(instrumentId)) throw new AppError("NotFound", `Instrument ${instrumentId} was not found`);
  return { interval, instrumentId, candles: ctx.market.candles(instrumentId, interval, count, direction) };
}
