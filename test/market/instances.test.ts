import { randomUUID } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import type { TickInfo } from "../../src/core/market.js";
import { RedisLease } from "../../src/infra/lease/redis.js";
import { type Deps, withActor } from "../../src/modules/context.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes, startMarket } from "../../src/modules/market/quotes.js";
import { openMarketOrder } from "../../src/modules/trading/open-market-order.js";
import { getTradeHistory } from "../../src/modules/trading/read-account.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { REDIS_TEST_URL } from "../support/services.js";

const withRedis = inject("services").redis;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

describe.each(withRedis ? ["redis"] : [])("the market lease in Redis (%s)", () => {
  const silent = pino({ level: "silent" });

  it("is held by one holder at a time, renewed by it only, and taken over once it expired", async () => {
    const key = `sta:test:lease:${randomUUID()}`;
    const a = await RedisLease.open(REDIS_TEST_URL, key, 300, silent);
    const b = await RedisLease.open(REDIS_TEST_URL, key, 300, silent);
    try {
      expect(await a.acquire()).toBe(true);
      expect(await b.acquire()).toBe(false);
      // The holder's renewals keep it past the first ttl.
      for (let i = 0; i < 4; i++) {
        await sleep(120);
        expect(await a.acquire()).toBe(true);
        expect(await b.acquire()).toBe(false);
      }
      // A releases nothing it does not hold: b's release leaves a's lease in place.
      await b.release();
      expect(await b.acquire()).toBe(false);
      // a stops renewing (as if it crashed): b gets the lease after the ttl, not before.
      const stoppedAt = Date.now();
      await until("b takes the lease over", () => b.acquire(), 2000);
      expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(250);
      expect(await a.acquire()).toBe(false);
      await b.release();
      expect(await a.acquire()).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

interface Instance {
  deps: Deps;
  app: App;
  /** Every tick the engine ran or applied, in order. */
  ticks: TickInfo[];
}

/** Two instances (apps) on one store and one Redis, the market started on both as `serve` does. */
describe.each(withRedis ? engines() : [])("one price stream for two instances on %s", (engine) => {
  let h: Harness;
  let instances: [Instance, Instance];
  const record = (deps: Deps): TickInfo[] => {
    const ticks: TickInfo[] = [];
    deps.market.onTick((_q, tick) => {
      ticks.push(tick);
    });
    return ticks;
  };
  const leader = () => instances.find((i) => i.deps.market.isLeader);
  const follower = () => instances.find((i) => !i.deps.market.isLeader);

  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        REDIS_URL: REDIS_TEST_URL,
        // Keys and channel of its own: other suites use the shared Redis at the same time.
        REDIS_NAMESPACE: `test-${randomUUID()}`,
        MARKET_LEASE_KEY: `sta:test:market:${randomUUID()}`,
        MARKET_TICK_MS: "40",
        MARKET_VOLATILITY: "0.002",
      },
    });
    const depsB = await createDeps(h.config);
    instances = [
      { deps: h.deps, app: h.app, ticks: record(h.deps) },
      { deps: depsB, app: await buildApp(h.config, depsB), ticks: record(depsB) },
    ];
    await startMarket(h.deps);
    await startMarket(depsB);
    await until("one instance leads and the other has applied its ticks", () =>
      instances.every((i) => i.ticks.length >= 5),
    );
  });
  afterAll(async () => {
    const b = instances[1];
    await b.app.close();
    await closeDeps(b.deps);
    await h.close();
  });

  it("lets exactly one instance tick; the other applies its steps and serves identical rates and candles", async () => {
    const lead = leader()!;
    const follow = follower()!;
    expect(lead).toBeDefined();
    expect(follow).toBeDefined();
    expect(instances.filter((i) => i.deps.market.isLeader)).toHaveLength(1);
    await sleep(200);
    expect(lead.ticks.length).toBeGreaterThan(3);
    expect(lead.ticks.every((t) => !t.applied)).toBe(true);
    expect(follow.ticks.every((t) => t.applied)).toBe(true);
    expect(follow.ticks.length).toBeGreaterThan(3);

    const ids = [1001, 1003, 100000];
    const u = await h.user(["trade.demo:read"]);
    const rates = (app: App) =>
      app.inject({
        method: "GET",
        url: `/api/v1/market-data/instruments/rates?instrumentIds=${ids.join(",")}`,
        headers: { ...u.headers, "x-request-id": randomUUID() },
      });
    // The follower lags by the broadcast's delivery: compare at a moment both are on one step.
    let compared = 0;
    for (let attempt = 0; attempt < 50 && compared < 3; attempt++) {
      const step = lead.deps.market.steps;
      if (follow.deps.market.steps !== step) {
        await sleep(5);
        continue;
      }
      const [ra, rb] = await Promise.all([rates(lead.app), rates(follow.app)]);
      if (lead.deps.market.steps !== step || follow.deps.market.steps !== step) continue;
      expect(ra.statusCode).toBe(200);
      expect(rb.json()).toEqual(ra.json());
      for (const id of ids) {
        expect(follow.deps.market.candles(id, "OneMinute", 5, "asc")).toEqual(
          lead.deps.market.candles(id, "OneMinute", 5, "asc"),
        );
        expect(follow.deps.market.quote(id)?.priceRateId).toBe(step);
      }
      compared += 1;
      await sleep(45);
    }
    expect(compared).toBe(3);
    // Prices did move along the way (the comparison is not of a frozen feed).
    expect(new Set(follow.ticks.map((t) => t.step)).size).toBe(follow.ticks.length);
  });

  it("fires a stop-loss exactly once: the leader closes a position opened through the follower", async () => {
    const follow = follower()!;
    const lead = leader()!;
    const u = await h.user(["trade.demo:write"]);
    const actor = u.actor;
    const ctx = withActor(follow.deps, actor);
    const bid = (await currentQuotes(follow.deps, [1003])).get(1003)!.bid;
    const stopLossRate = Math.round(bid * 0.95 * 100) / 100;
    const opened = await openMarketOrder(ctx, randomUUID(), {
      instrumentId: 1003,
      isBuy: true,
      leverage: 1,
      amount: 100,
      stopLossRate,
      takeProfitRate: 0,
    });
    const positionId = opened.order.positionId;
    // Opened on the follower, watched on both (PositionOpened runs everywhere).
    await until("both instances watch the stop", () =>
      instances.every((i) => i.deps.triggers.index.currentStop(positionId) === stopLossRate),
    );
    // The price falls through the stop on the next tick, on whichever engine leads.
    const crash = Math.round(bid * 0.8 * 100) / 100;
    for (const i of instances) i.deps.market.useSource(new RecordedSource({ 1003: [crash] }, i.deps.market.steps));
    const history = () => getTradeHistory(ctx, { page: 1, pageSize: 10 });
    await until("the stop-loss closed the position", async () => (await history()).length > 0);
    // A few more ticks on both: nothing closes it a second time.
    const stepNow = lead.deps.market.steps;
    await until("five more steps", () => instances.every((i) => i.deps.market.steps >= stepNow + 5));
    const trades = await history();
    expect(trades.map((t) => [t.positionId, t.closeReason, t.closeRate])).toEqual([
      [positionId, "StopLoss", stopLossRate],
    ]);
    expect(instances.every((i) => i.deps.triggers.index.currentStop(positionId) === undefined)).toBe(true);
    expect(follow.deps.market.quote(1003)!.mid).toBe(lead.deps.market.quote(1003)!.mid);
  });

  it("hands the stream over when the leader stops: the other continues from the last step it applied", async () => {
    const lead = leader()!;
    const follow = follower()!;
    const stoppedAt = Date.now();
    await lead.deps.market.stop();
    const lastApplied = follow.ticks[follow.ticks.length - 1]!;
    const appliedBefore = follow.ticks.length;
    await until("the follower leads", () => follow.deps.market.isLeader && follow.ticks.length > appliedBefore + 2);
    // Released on stop, so well within the lease time (3 ticks, at least 1 s).
    expect(Date.now() - stoppedAt).toBeLessThan(1000);
    const own = follow.ticks.slice(appliedBefore);
    expect(own.every((t) => !t.applied)).toBe(true);
    // No gap and no repeat in the steps across the handover.
    expect(own[0]!.step).toBe(lastApplied.step + 1);
    expect(own.map((t) => t.step)).toEqual(own.map((_t, n) => lastApplied.step + 1 + n));
  });
});
