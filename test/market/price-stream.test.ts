import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/core/clock.js";
import type { CandleInterval, PricedInstrument, Quote } from "../../src/core/market.js";
import { type Ctx, withActor } from "../../src/modules/context.js";
import { MarketEngine } from "../../src/modules/market/engine.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { openMarketOrder } from "../../src/modules/trading/open-market-order.js";
import { getTradeHistory } from "../../src/modules/trading/read-account.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const aapl: PricedInstrument = { instrumentId: 1001, priceSeed: 190, precision: 2, volatilityFactor: 1 };
const btc: PricedInstrument = { instrumentId: 100000, priceSeed: 67250, precision: 2, volatilityFactor: 2.5 };
const eur: PricedInstrument = { instrumentId: 1, priceSeed: 1.0852, precision: 5, volatilityFactor: 0.3 };
const INTERVALS: CandleInterval[] = ["OneMinute", "FiveMinutes", "OneHour", "OneDay", "OneWeek"];

function manualClock(start = Date.parse("2026-03-02T10:00:00.000Z")) {
  let now = start;
  const clock: Clock = { now: () => new Date(now) };
  return { clock, advance: (ms: number) => (now += ms) };
}

describe("a follower engine applying the leader's ticks", () => {
  it("serves the same quotes, candles and step as the leader, whatever the path", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.array(fc.integer({ min: 0, max: 400_000 }), { minLength: 1, maxLength: 40 }),
        async (seed, gaps) => {
          const leaderClock = manualClock();
          const leader = new MarketEngine({ seed, volatility: 0.01, spreadBps: 8, tickMs: 0 }, leaderClock.clock);
          // Started together, but with another seed and a clock that stands still: nothing of the
          // follower's own feed or time may leak into what it serves.
          const follower = new MarketEngine(
            { seed: seed ^ 0x5555, volatility: 0.01, spreadBps: 8, tickMs: 0 },
            manualClock().clock,
          );
          leader.register([aapl, btc, eur]);
          follower.register([aapl, btc, eur]);
          for (const gap of gaps) {
            leaderClock.advance(gap);
            const quotes = await leader.tick();
            expect(await follower.apply(leader.steps, quotes)).toBe(true);
          }
          expect(follower.steps).toBe(leader.steps);
          for (const i of [aapl, btc, eur]) {
            expect(follower.quote(i.instrumentId)).toEqual(leader.quote(i.instrumentId));
            for (const interval of INTERVALS) {
              expect(follower.candles(i.instrumentId, interval, 1000, "asc")).toEqual(
                leader.candles(i.instrumentId, interval, 1000, "asc"),
              );
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("ignores a broadcast of a step it has passed, and tells listeners the tick was applied", async () => {
    const { clock } = manualClock();
    const engine = new MarketEngine({ seed: 1, volatility: 0.001, spreadBps: 4, tickMs: 0 }, clock);
    engine.register([aapl]);
    const seen: [number, boolean, number][] = [];
    engine.onTick((quotes, tick) => {
      seen.push([tick.step, tick.applied, quotes.length]);
    });
    const q = (step: number, mid: number): Quote => ({
      instrumentId: 1001,
      bid: mid - 0.01,
      ask: mid + 0.01,
      mid,
      date: "2026-03-02T10:00:01.000Z",
      priceRateId: step,
    });
    expect(await engine.apply(5, [q(5, 200)])).toBe(true);
    expect(await engine.apply(5, [q(5, 300)])).toBe(false);
    expect(await engine.apply(3, [q(3, 300)])).toBe(false);
    expect(engine.quote(1001)!.mid).toBe(200);
    // Leading now, it continues from the applied price and step.
    engine.useSource(new RecordedSource({ 1001: [201] }, 5));
    await engine.tick();
    expect(engine.quote(1001)).toMatchObject({ mid: 201, priceRateId: 6 });
    expect(seen).toEqual([
      [5, true, 1],
      [6, false, 1],
    ]);
  });

  it("keeps a broadcast quote of an instrument not priced here yet, and starts it there", async () => {
    const engine = new MarketEngine({ seed: 1, volatility: 0.001, spreadBps: 4, tickMs: 0 }, manualClock().clock);
    const quote: Quote = {
      instrumentId: 1,
      bid: 1.2,
      ask: 1.20002,
      mid: 1.20001,
      date: "2026-03-02T10:00:02.000Z",
      priceRateId: 9,
    };
    await engine.apply(9, [quote]);
    expect(engine.has(1)).toBe(false);
    engine.register([eur]);
    expect(engine.quote(1)).toEqual(quote);
    expect(engine.candles(1, "OneMinute", 1, "asc")[0]).toMatchObject({
      fromDate: "2026-03-02T10:00:00.000Z",
      close: 1.20001,
    });
  });
});

describe.each(engines())("triggers on a follower on %s", (engine) => {
  let h: Harness;
  let ctx: Ctx;
  beforeAll(async () => {
    h = await startHarness(engine);
    const u = await h.user(["trade.demo:write"]);
    const actor = u.actor;
    ctx = withActor(h.deps, actor);
    await currentQuotes(h.deps, [1003]);
  });
  afterAll(async () => h.close());

  const applied = async (mid: number) => {
    const market = h.deps.market;
    const step = market.steps + 1;
    await market.apply(step, [
      {
        instrumentId: 1003,
        bid: mid - 0.05,
        ask: mid + 0.05,
        mid,
        date: h.deps.clock.now().toISOString(),
        priceRateId: step,
      },
    ]);
  };
  const open = (input: { stopLossRate: number; isTslEnabled?: boolean }) =>
    openMarketOrder(ctx, randomUUID(), {
      instrumentId: 1003,
      isBuy: true,
      leverage: 1,
      amount: 100,
      takeProfitRate: 0,
      ...input,
    });

  it("follows a trailing stop on applied ticks, leaves the close to the leader, and closes it once on taking over", async () => {
    await applied(400);
    const trailing = await open({ stopLossRate: 390, isTslEnabled: true });
    const fixed = await open({ stopLossRate: 380 });
    const index = h.deps.triggers.index;
    await applied(410);
    // The trailing stop kept its gap of 10 (from 400.05 bid-side best) as the price rose.
    expect(index.currentStop(trailing.order.positionId)).toBeGreaterThan(399);
    await applied(370);
    // Both crossed on an applied tick: the follower stops watching them but closes nothing.
    expect(index.currentStop(trailing.order.positionId)).toBeUndefined();
    expect(index.currentStop(fixed.order.positionId)).toBeUndefined();
    expect(await getTradeHistory(ctx, { page: 1, pageSize: 10 })).toEqual([]);
    // The leader went away before closing them: this instance now ticks and closes each once.
    h.deps.market.useSource(new RecordedSource({ 1003: [369, 368] }, h.deps.market.steps));
    await h.deps.market.tick();
    await h.deps.market.tick();
    const trades = await getTradeHistory(ctx, { page: 1, pageSize: 10 });
    expect(trades.map((t) => [t.positionId, t.closeReason]).sort()).toEqual(
      [
        [trailing.order.positionId, "TrailingStopLoss"],
        [fixed.order.positionId, "StopLoss"],
      ].sort(),
    );
  });
});
