import type { Candle } from "../../../core/market.js";

/** A close, or upstream's "no data" marker (price -1 on 0001-01-01). */
export interface Close {
  price: number;
  date: string;
}

export interface ClosingPrices {
  daily: Close;
  weekly: Close;
  monthly: Close;
}

export const NO_CLOSE: Close = Object.freeze({ price: -1, date: "0001-01-01T00:00:00.000Z" });

const DAY = 86_400_000;

/**
 * The most recent daily candles that always hold every close: at most 31 candles start in the
 * current month, so the last one before the 1st is among the 32 latest (33 leaves room for the one
 * in progress at midnight). Fewer candles to copy than the 1000 the engine keeps.
 */
export const CLOSE_CANDLES = 33;
/** Weeks start on Monday, as the candles' OneWeek interval does. */
const WEEK_OFFSET = 4 * DAY;
const WEEK = 7 * DAY;

/** The last candle that started before `boundary` (ms), as a close; NO_CLOSE when none did. */
function lastBefore(dayCandles: readonly Candle[], boundary: number): Close {
  for (let i = dayCandles.length - 1; i >= 0; i--) {
    const c = dayCandles[i]!;
    if (Date.parse(c.fromDate) < boundary) return { price: c.close, date: c.fromDate };
  }
  return NO_CLOSE;
}

/**
 * The official closes as of `now` (decision 0134), read off the engine's daily candles (oldest
 * first): the previous day's close is the close of the last daily candle that started before
 * today (UTC), the previous week's the last one before this Monday, the previous month's the last
 * one before the 1st of this month. Each is dated by its day. A period the engine has no candle
 * before (it started later) has no close: price -1 on 0001-01-01, as upstream reports.
 */
export function closingPrices(dayCandles: readonly Candle[], now: Date): ClosingPrices {
  const t = now.getTime();
  const today = Math.floor(t / DAY) * DAY;
  const monday = Math.floor((t - WEEK_OFFSET) / WEEK) * WEEK + WEEK_OFFSET;
  const firstOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  return {
    daily: lastBefore(dayCandles, today),
    weekly: lastBefore(dayCandles, monday),
    monthly: lastBefore(dayCandles, firstOfMonth),
  };
}

/** Percent change from `close` to `rate`, rounded to 4 decimals; undefined without a close. */
export function changePct(rate: number | undefined, close: Close): number | undefined {
  if (rate === undefined || close.price <= 0) return undefined;
  return Math.round(((rate - close.price) / close.price) * 100 * 10_000) / 10_000;
}
