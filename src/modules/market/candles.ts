import { CANDLE_INTERVALS, type Candle, type CandleInterval } from "../../core/market.js";

const INTERVAL_NAMES = Object.keys(CANDLE_INTERVALS) as CandleInterval[];
/** Weeks start on Monday: the first Monday after the Unix epoch (a Thursday) was 4 days in. */
const WEEK_OFFSET = 4 * 86_400_000;
/** Candles kept per instrument and interval; the oldest goes first. */
const MAX_CANDLES = 1000;

interface OpenCandle {
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** One instrument's candles of every interval, built from the mid prices it is given. */
export class CandleSeries {
  private readonly byInterval = new Map<CandleInterval, OpenCandle[]>();

  /** Folds a price at `time` (ms) into the current candle of every interval, or starts the next one. */
  add(time: number, price: number): void {
    for (const interval of INTERVAL_NAMES) {
      const ms = CANDLE_INTERVALS[interval];
      const offset = interval === "OneWeek" ? WEEK_OFFSET : 0;
      const start = Math.floor((time - offset) / ms) * ms + offset;
      let list = this.byInterval.get(interval);
      if (!list) {
        list = [];
        this.byInterval.set(interval, list);
      }
      const last = list[list.length - 1];
      if (last && last.start === start) {
        last.high = Math.max(last.high, price);
        last.low = Math.min(last.low, price);
        last.close = price;
        last.volume += 1;
      } else {
        list.push({ start, open: price, high: price, low: price, close: price, volume: 1 });
        if (list.length > MAX_CANDLES) list.shift();
      }
    }
  }

  /** Up to `count` most recent candles, oldest first (`asc`) or newest first (`desc`). */
  recent(interval: CandleInterval, count: number, direction: "asc" | "desc"): Candle[] {
    const list = this.byInterval.get(interval) ?? [];
    const picked = list.slice(Math.max(0, list.length - count)).map((c) => ({
      fromDate: new Date(c.start).toISOString(),
      open: c.open,
      high: c.high,
      low: c.low,
      close: c.close,
      volume: c.volume,
    }));
    return direction === "desc" ? picked.reverse() : picked;
  }
}
