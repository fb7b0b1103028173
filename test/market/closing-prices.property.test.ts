import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Candle } from "../../src/core/market.js";
import { CLOSE_CANDLES, closingPrices, NO_CLOSE } from "../../src/modules/market/reference-data/closing-prices.js";

const DAY = 86_400_000;
const START = Date.parse("2024-01-01T00:00:00.000Z");

/** Daily candles on some of 1000 days (a server that was sometimes down), oldest first, and a now soon after the last. */
const history = fc
  .tuple(
    fc.uniqueArray(fc.integer({ min: 0, max: 999 }), { maxLength: 60 }),
    // Most runs: a server that ran every day for up to 70 days to the end.
    fc.option(fc.integer({ min: 0, max: 70 }), { freq: 4 }),
    fc.integer({ min: 0, max: 2 * DAY }),
  )
  .map(([sparse, running, after]) => {
    const end = sparse.length > 0 ? Math.max(...sparse) : 999;
    const dense = running === null ? [] : Array.from({ length: Math.min(running, end) + 1 }, (_, i) => end - i);
    const sorted = [...new Set([...sparse, ...dense])].sort((a, b) => a - b);
    const candles: Candle[] = sorted.map((d) => ({
      fromDate: new Date(START + d * DAY).toISOString(),
      open: 1,
      high: 1,
      low: 1,
      close: 100 + d,
      volume: 1,
    }));
    const last = sorted.length > 0 ? START + sorted[sorted.length - 1]! * DAY : START;
    return { candles, now: new Date(last + after) };
  });

/** The last candle starting strictly before `boundary`, said again independently. */
function oracle(candles: Candle[], boundary: number) {
  const before = candles.filter((c) => Date.parse(c.fromDate) < boundary);
  const last = before[before.length - 1];
  return last ? { price: last.close, date: last.fromDate } : NO_CLOSE;
}

describe("closing prices off the daily candles", () => {
  it("are the last closes before today, this Monday and the 1st, and the latest candles always hold them", () => {
    fc.assert(
      fc.property(history, ({ candles, now }) => {
        const t = now.getTime();
        const today = Math.floor(t / DAY) * DAY;
        // Monday: the weekday of `today`, counted from Monday (1 January 2024 was a Monday).
        const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * DAY;
        const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
        const all = closingPrices(candles, now);
        expect(all).toEqual({
          daily: oracle(candles, today),
          weekly: oracle(candles, monday),
          monthly: oracle(candles, first),
        });
        expect(closingPrices(candles.slice(-CLOSE_CANDLES), now)).toEqual(all);
      }),
      { numRuns: 500 },
    );
  });
});
