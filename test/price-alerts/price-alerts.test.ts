import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import type { Deps } from "../../src/modules/context.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes, startMarket } from "../../src/modules/market/quotes.js";
import { loadAlerts } from "../../src/modules/price-alerts/alert-watch.js";
import { PriceAlertCollection, PriceAlertMutation } from "../../src/modules/price-alerts/price-alerts.schemas.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";
import { REDIS_TEST_URL } from "../support/services.js";

const AAPL = 1001;
const URL = "/api/v1/price-alerts";
const RW = ["price-alerts:read", "price-alerts:write", "notifications:read"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

const call = (app: App, u: TestUser, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object) =>
  app.inject({ method, url, headers: { ...u.headers, "x-request-id": rid() }, ...(payload ? { payload } : {}) });

const alertNotifications = async (app: App, u: TestUser) => {
  const res = await call(app, u, "GET", "/api/v1/notifications/messages");
  return (res.json().messages as { notificationType: string; message: string; correlationId: string }[]).filter(
    (m) => m.notificationType === "PriceAlert",
  );
};

describe.each(engines())("price alerts on %s", (engine) => {
  let h: Harness;
  let bid: number;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { MARKET_TICK_MS: "0", PRICE_ALERTS_MAX_PER_USER: "3" } });
    bid = (await currentQuotes(h.deps, [AAPL])).get(AAPL)!.bid;
  });
  afterAll(async () => h.close());

  /** Moves AAPL along a scripted path of mid prices, one tick each, as the engine would. */
  const play = async (mids: number[]) => {
    h.deps.market.useSource(new RecordedSource({ [AAPL]: mids }, h.deps.market.steps));
    for (let i = 0; i < mids.length; i++) await h.deps.market.tick();
    bid = (await currentQuotes(h.deps, [AAPL])).get(AAPL)!.bid;
  };

  const create = async (u: TestUser, body: object) => {
    const res = await call(h.app, u, "POST", URL, body);
    expect(res.statusCode, res.body).toBe(201);
    expectSchema(PriceAlertMutation, res.json());
    return res.json().data as { alertId: string; targetPrice: number; currentPrice: number; symbol: string };
  };

  it("fires once when the bid rises to a target set above it, then leaves the active list", async () => {
    const u = await h.user(RW);
    const above = await create(u, { symbol: "aapl", targetPrice: Math.round(bid * 1.05 * 100) / 100 });
    expect(above).toMatchObject({ symbol: "AAPL", currentPrice: bid });
    const listed = (await call(h.app, u, "GET", URL)).json();
    expectSchema(PriceAlertCollection, listed);
    expect(listed.results.map((a: { alertId: string }) => a.alertId)).toEqual([above.alertId]);

    await play([bid * 1.02]);
    expect(await alertNotifications(h.app, u)).toEqual([]);
    await play([bid * 1.1, bid * 1.2, bid * 0.9, bid * 1.2]);
    const told = await alertNotifications(h.app, u);
    expect(told).toHaveLength(1);
    expect(told[0]!.correlationId).toBe(above.alertId);
    expect(told[0]!.message).toMatch(new RegExp(`^AAPL rose to your price alert at ${above.targetPrice} \\(bid `));
    expect((await call(h.app, u, "GET", URL)).json().results).toEqual([]);
    expect(h.deps.alerts.index.has(above.alertId)).toBe(false);
  });

  it("a target set below the bid fires on a fall to it, not on a rise", async () => {
    const u = await h.user(RW);
    const below = await create(u, { instrumentId: AAPL, targetPrice: Math.round(bid * 0.9 * 100) / 100 });
    await play([bid * 1.3]);
    expect(await alertNotifications(h.app, u)).toEqual([]);
    await play([below.targetPrice * 0.99]);
    expect((await alertNotifications(h.app, u)).map((m) => m.message)).toEqual([
      expect.stringMatching(/^AAPL fell to your price alert/),
    ]);
  });

  it("answers mistakes in upstream's envelope beside the one error body", async () => {
    const u = await h.user(RW);
    const zero = await call(h.app, u, "POST", URL, { symbol: "AAPL", targetPrice: 0 });
    expect(zero.statusCode).toBe(422);
    expect(zero.json()).toMatchObject({
      errorCode: "ValidationFailed",
      requestId: zero.headers["x-request-id"],
      success: false,
      error: { code: "VALIDATION_ERROR", field: "targetPrice" },
    });
    const unknown = await call(h.app, u, "POST", URL, { symbol: "NOPE-NOT-LISTED", targetPrice: 10 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
    const atBid = await call(h.app, u, "POST", URL, { symbol: "AAPL", targetPrice: bid });
    expect(atBid.statusCode).toBe(422);
    expect(atBid.json().error.message).toContain("must differ from the current bid");
    const neither = await call(h.app, u, "POST", URL, { targetPrice: 10 });
    expect(neither.json().details[0].field).toBe("body/symbol");
    const disagree = await call(h.app, u, "POST", URL, { symbol: "AAPL", instrumentId: 100000, targetPrice: 10 });
    expect(disagree.statusCode).toBe(422);
    expect(disagree.json().error.field).toBe("instrumentId");
    const badJson = await h.app.inject({
      method: "POST",
      url: URL,
      headers: { ...u.headers, "x-request-id": rid(), "content-type": "application/json" },
      payload: "{",
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json()).toMatchObject({ success: false, error: { code: "BAD_REQUEST" } });
  });

  it("updates the target from the bid now, deletes, and keeps other users' alerts out of reach", async () => {
    const u = await h.user(RW);
    const other = await h.user(RW);
    const alert = await create(u, { symbol: "AAPL", targetPrice: Math.round(bid * 1.5 * 100) / 100 });
    const lower = Math.round(bid * 0.5 * 100) / 100;
    const patched = await call(h.app, u, "PATCH", `${URL}/${alert.alertId}`, { targetPrice: lower });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data).toMatchObject({ alertId: alert.alertId, targetPrice: lower, currentPrice: bid });
    expect((await call(h.app, other, "PATCH", `${URL}/${alert.alertId}`, { targetPrice: 1 })).statusCode).toBe(404);
    expect((await call(h.app, other, "DELETE", `${URL}/${alert.alertId}`)).statusCode).toBe(404);
    // The new target is below the bid now: a rise to the old one no longer fires it.
    await play([bid * 1.6]);
    expect(await alertNotifications(h.app, u)).toEqual([]);
    const deleted = await call(h.app, u, "DELETE", `${URL}/${alert.alertId}`);
    expect(deleted.json()).toEqual({ success: true, data: { alertId: alert.alertId } });
    expect((await call(h.app, u, "DELETE", `${URL}/${alert.alertId}`)).statusCode).toBe(404);
    await play([lower * 0.9]);
    expect(await alertNotifications(h.app, u)).toEqual([]);
  });

  it("holds the per-user limit under concurrent creates", async () => {
    const u = await h.user(RW);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(h.app, u, "POST", URL, { symbol: "AAPL", targetPrice: bid * 2 + i })),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.statusCode === 422);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.json().errorMessage).toContain("3 active price alerts");
  });

  it("is watched again after a restart: the index is rebuilt from the store", async () => {
    const u = await h.user(RW);
    const alert = await create(u, { symbol: "AAPL", targetPrice: Math.round(bid * 1.1 * 100) / 100 });
    h.deps.alerts.index.remove(alert.alertId);
    expect(await loadAlerts(h.deps)).toBeGreaterThanOrEqual(1);
    expect(h.deps.alerts.index.has(alert.alertId)).toBe(true);
    await play([bid * 1.2]);
    expect(await alertNotifications(h.app, u)).toHaveLength(1);
  });
});

const withRedis = inject("services").redis;

describe.each(withRedis ? engines() : [])("price alerts on two instances on %s", (engine) => {
  let h: Harness;
  let b: { deps: Deps; app: App };
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        REDIS_URL: REDIS_TEST_URL,
        REDIS_NAMESPACE: `test-${randomUUID()}`,
        MARKET_LEASE_KEY: `sta:test:market:${randomUUID()}`,
        MARKET_TICK_MS: "40",
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

  it("an alert made through one instance fires exactly once, whichever instance leads", async () => {
    const u = await h.user(RW);
    const bid = (await currentQuotes(b.deps, [AAPL])).get(AAPL)!.bid;
    const target = Math.round(bid * 1.1 * 100) / 100;
    const res = await call(b.app, u, "POST", URL, { symbol: "AAPL", targetPrice: target });
    expect(res.statusCode, res.body).toBe(201);
    const alertId = res.json().data.alertId;
    await until("both instances watch it", () => [h.deps, b.deps].every((d) => d.alerts.index.has(alertId)));
    const rise = [bid * 1.2, bid * 1.3, bid * 1.2, bid * 1.3];
    for (const d of [h.deps, b.deps]) d.market.useSource(new RecordedSource({ [AAPL]: rise }, d.market.steps));
    await until("the alert fired", async () => (await alertNotifications(h.app, u)).length > 0);
    const step = h.deps.market.steps;
    await until("five more steps", () => [h.deps, b.deps].every((d) => d.market.steps >= step + 5));
    expect(await alertNotifications(b.app, u)).toHaveLength(1);
    expect([h.deps, b.deps].some((d) => d.alerts.index.has(alertId))).toBe(false);
  });
});
