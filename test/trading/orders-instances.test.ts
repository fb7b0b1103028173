import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import type { Deps } from "../../src/modules/context.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes, startMarket } from "../../src/modules/market/quotes.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { REDIS_TEST_URL } from "../support/services.js";

const AAPL = 1001;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

const call = (app: App, u: TestUser, method: "GET" | "POST" | "DELETE", url: string, payload?: object) =>
  app.inject({ method, url, headers: { ...u.headers, "x-request-id": rid() }, ...(payload ? { payload } : {}) });

const withRedis = inject("services").redis;

describe.each(withRedis ? engines() : [])("entry orders on two instances on %s", (engine) => {
  let h: Harness;
  let b: { deps: Deps; app: App };
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        REDIS_URL: REDIS_TEST_URL,
        REDIS_NAMESPACE: `test-${randomUUID()}`,
        MARKET_LEASE_KEY: `sta:test:market:${randomUUID()}`,
        MARKET_TICK_MS: "40",
        RATE_LIMITS_ENABLED: "false",
      },
    });
    const depsB = await createDeps(h.config);
    b = { deps: depsB, app: await buildApp(h.config, depsB) };
    await startMarket(h.deps);
    await startMarket(depsB);
  });
  afterAll(async () => {
    await b.app.close();
    await closeDeps(b.deps);
    await h.close();
  });

  it("an entry order placed through one instance executes exactly once, whichever instance leads", async () => {
    const u = await h.user(["trade.demo:write", "notifications:read"]);
    const ask = (await currentQuotes(b.deps, [AAPL])).get(AAPL)!.ask;
    const trigger = Math.round(ask * 0.9 * 100) / 100;
    const res = await call(b.app, u, "POST", "/api/v2/trading/execution/demo/orders", {
      action: "open",
      transaction: "buy",
      instrumentId: AAPL,
      orderType: "mit",
      triggerRate: trigger,
      leverage: 1,
      amount: 100,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { orderId } = res.json();
    await until("both instances watch it", () => [h.deps, b.deps].every((d) => d.entryOrders.index.has(orderId)));
    const fall = [ask * 0.85, ask * 0.8, ask * 0.85, ask * 0.8];
    for (const d of [h.deps, b.deps]) d.market.useSource(new RecordedSource({ [AAPL]: fall }, d.market.steps));
    const lookup = async (app: App) =>
      (await call(app, u, "GET", `/api/v2/trading/info/demo/orders:lookup?orderId=${orderId}`)).json();
    await until("it executed", async () => (await lookup(h.app)).status.id === 1);
    const step = h.deps.market.steps;
    await until("five more steps", () => [h.deps, b.deps].every((d) => d.market.steps >= step + 5));
    const portfolio = (await call(b.app, u, "GET", "/api/v1/trading/info/demo/portfolio")).json().clientPortfolio;
    expect(portfolio.positions).toHaveLength(1);
    expect(portfolio.orders).toEqual([]);
    expect((await lookup(b.app)).positionExecutions[0].positionId).toBe(portfolio.positions[0].positionID);
    expect([h.deps, b.deps].some((d) => d.entryOrders.index.has(orderId))).toBe(false);
    const notes = (await call(h.app, u, "GET", "/api/v1/notifications/messages")).json().messages as {
      notificationType: string;
    }[];
    expect(notes.filter((m) => m.notificationType === "EntryOrder")).toHaveLength(1);
  });
});
