import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/core/clock.js";
import type { PricedInstrument } from "../../src/core/market.js";
import { MarketEngine } from "../../src/modules/market/engine.js";
import { RandomWalkSource, RecordedSource } from "../../src/modules/market/price-sources.js";

const settings = { seed: 7, volatility: 0.001, spreadBps: 10, tickMs: 0 };
const aapl: PricedInstrument = { instrumentId: 1001, priceSeed: 190, precision: 2, volatilityFactor: 1 };
const btc: PricedInstrument = { instrumentId: 100000, priceSeed: 67250, precision: 2, volatilityFactor: 2.5 };
const eur: PricedInstrument = { instrumentId: 1, priceSeed: 1.0852, precision: 5, volatilityFactor: 0.3 };

/** A clock the test moves by hand. */
function manualClock(start = Date.parse("2026-03-02T10:00:00.000Z")) {
  let now = start;
  const clock: Clock = { now: () => new Date(now) };
  return { clock, advance: (ms: number) => (now += ms) };
}

async function path(seed: number, instruments: PricedInstrument[], ticks: number, id: number): Promise<number[]> {
  const engine = new MarketEngine({ ...settings, seed }, manualClock().clock);
  engine.register(instruments);
  const mids: number[] = [];
  for (let i = 0; i < ticks; i++) {
    await engine.tick();
    mids.push(engine.quote(id)!.mid);
  }
  return mids;
}

describe("market engine", () => {
  it("is reproducible: the same seed gives the same path, another seed another path", async () => {
    const a = await path(7, [aapl, btc], 50, 1001);
    expect(await path(7, [aapl, btc], 50, 1001)).toEqual(a);
    expect(await path(8, [aapl, btc], 50, 1001)).not.toEqual(a);
  });

  it("prices each instrument independently of which others are priced", async () => {
    expect(await path(7, [aapl], 30, 1001)).toEqual(await path(7, [btc, eur, aapl], 30, 1001));
  });

  it("keeps every quote positive with bid below ask by at least one pip, at the instrument's precision", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 32 - 1 }), async (seed) => {
        const engine = new MarketEngine({ ...settings, seed, volatility: 0.02 }, manualClock().clock);
        engine.register([aapl, btc, eur]);
        for (let i = 0; i < 40; i++) {
          for (const q of await engine.tick()) {
            const precision = q.instrumentId === 1 ? 5 : 2;
            expect(q.bid).toBeGreaterThan(0);
            expect(q.ask - q.bid).toBeGreaterThanOrEqual(10 ** -precision - 1e-12);
            expect(Number(q.bid.toFixed(precision))).toBe(q.bid);
            expect(Number(q.ask.toFixed(precision))).toBe(q.ask);
          }
        }
      }),
      { numRuns: 30 },
    );
  });

  it("replays a recorded series and then holds the last price", async () => {
    const engine = new MarketEngine({ ...settings, spreadBps: 0 }, manualClock().clock);
    engine.register([aapl, btc]);
    engine.useSource(new RecordedSource({ 1001: [191, 192.5] }));
    await engine.tick();
    expect(engine.quote(1001)!.mid).toBe(191);
    expect(engine.quote(100000)!.mid).toBe(67250);
    await engine.tick();
    await engine.tick();
    expect(engine.quote(1001)).toMatchObject({ mid: 192.5, bid: 192.5, ask: 192.51 });
  });

  it("folds ticks into candles per interval, newest last for asc", async () => {
    const { clock, advance } = manualClock();
    const engine = new MarketEngine({ ...settings, spreadBps: 0 }, clock);
    engine.register([aapl]);
    engine.useSource(new RecordedSource({ 1001: [191, 189, 195, 193] }));
    for (let i = 0; i < 4; i++) {
      advance(30_000);
      await engine.tick();
    }
    // 10:00:00 (seed 190), 10:00:30 (191) | 10:01:00 (189), 10:01:30 (195) | 10:02:00 (193)
    const minutes = engine.candles(1001, "OneMinute", 10, "asc");
    expect(minutes).toEqual([
      { fromDate: "2026-03-02T10:00:00.000Z", open: 190, high: 191, low: 190, close: 191, volume: 2 },
      { fromDate: "2026-03-02T10:01:00.000Z", open: 189, high: 195, low: 189, close: 195, volume: 2 },
      { fromDate: "2026-03-02T10:02:00.000Z", open: 193, high: 193, low: 193, close: 193, volume: 1 },
    ]);
    expect(engine.candles(1001, "OneMinute", 2, "desc").map((c) => c.close)).toEqual([193, 195]);
    const week = engine.candles(1001, "OneWeek", 5, "asc");
    expect(week).toEqual([
      { fromDate: "2026-03-02T00:00:00.000Z", open: 190, high: 195, low: 189, close: 193, volume: 5 },
    ]);
  });

  it("runs tick listeners before the tick resolves, and never overlaps ticks", async () => {
    const engine = new MarketEngine(settings, manualClock().clock);
    engine.register([aapl]);
    const seen: number[] = [];
    let active = 0;
    engine.onTick(async (quotes) => {
      active += 1;
      expect(active).toBe(1);
      await new Promise((r) => setTimeout(r, 5));
      seen.push(quotes[0]!.priceRateId);
      active -= 1;
    });
    await Promise.all([engine.tick(), engine.tick(), engine.tick()]);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("the random walk is unbiased enough: the median of many one-step moves is near zero", () => {
    const source = new RandomWalkSource(123, 0.01);
    const moves: number[] = [];
    for (let i = 0; i < 2000; i++) moves.push(Math.log(source.next(aapl, 100) / 100));
    moves.sort((a, b) => a - b);
    expect(Math.abs(moves[1000]!)).toBeLessThan(0.002);
    const sd = Math.sqrt(moves.reduce((s, m) => s + m * m, 0) / moves.length);
    expect(sd).toBeGreaterThan(0.008);
    expect(sd).toBeLessThan(0.012);
  });
});
