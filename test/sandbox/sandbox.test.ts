import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { OPERATOR_SCOPE } from "../../src/core/scopes.js";
import { withActor } from "../../src/modules/context.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { FAULT_HEADER } from "../../src/modules/sandbox/sandbox.routes.js";
import { engines, type Harness, type Headers, startHarness, type TestUser } from "../support/harness.js";

const AAPL = 1001;
const BTC = 100000;
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const PORTFOLIO = "/api/v1/trading/info/demo/portfolio";
const HISTORY = "/api/v1/trading/info/trade/demo/history";
const ME = "/api/v1/me";

describe.each(engines())("sandbox controls over HTTP on %s", (engine) => {
  let h: Harness;
  let op: TestUser;
  beforeAll(async () => {
    h = await startHarness(engine);
    op = await h.user([OPERATOR_SCOPE]);
  });
  afterAll(async () => h.close());

  type Method = "GET" | "POST" | "PUT" | "DELETE";
  const call = (method: Method, url: string, headers: Headers, payload?: unknown) =>
    h.app.inject({
      method,
      url,
      headers: { ...headers, "x-request-id": randomUUID() },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  const sandbox = async (
    method: Method,
    url: string,
    payload?: unknown,
    status = method === "POST" && /faults$|snapshots$/.test(url) ? 201 : 200,
  ) => {
    const res = await call(method, url, op.headers, payload);
    expect(res.statusCode, res.body).toBe(status);
    return res.json();
  };
  const trader = () => h.user(["trade.demo:write", "price-alerts:write", "price-alerts:read"]);

  it("a price set through the sandbox fires a stop-loss exactly at its rate, as an organic tick would", async () => {
    const u = await trader();
    await sandbox("PUT", `/sandbox/v1/prices/${AAPL}`, { bid: 200, ask: 200.1 });
    const open = await call("POST", BY_AMOUNT, u.headers, {
      InstrumentID: AAPL,
      IsBuy: true,
      Leverage: 1,
      Amount: 1000,
      StopLossRate: 195,
    });
    expect(open.statusCode, open.body).toBe(200);
    const state = await sandbox("PUT", `/sandbox/v1/prices/${AAPL}`, { bid: 195.5, ask: 195.6 });
    expect(state.quote).toMatchObject({ instrumentId: AAPL, bid: 195.5, ask: 195.6, mid: 195.55 });
    expect((await call("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(1);
    await sandbox("PUT", `/sandbox/v1/prices/${AAPL}`, { bid: 194, ask: 194.1 });
    expect((await call("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(0);
    const [trade] = (await call("GET", HISTORY, u.headers)).json();
    expect(trade).toMatchObject({ closeRate: 195, closeReason: "StopLoss" });
  });

  it("a set price fires a price alert and reaches the market data as the quote of a new tick", async () => {
    const u = await trader();
    await sandbox("PUT", `/sandbox/v1/prices/${AAPL}`, { bid: 150, ask: 150.2 });
    const before = (await sandbox("GET", "/sandbox/v1/market")).step;
    const alert = await call("POST", "/api/v1/price-alerts", u.headers, { symbol: "AAPL", targetPrice: 160 });
    expect(alert.statusCode, alert.body).toBe(201);
    const set = await sandbox("PUT", `/sandbox/v1/prices/${AAPL}`, { bid: 160.5, ask: 160.7 });
    expect(set.quote.priceRateId).toBe(before + 1);
    const active = (await call("GET", "/api/v1/price-alerts", u.headers)).json().results;
    expect(active).toHaveLength(0);
  });

  it("refuses an ask below the bid and an unknown instrument", async () => {
    const bad = await call("PUT", `/sandbox/v1/prices/${AAPL}`, op.headers, { bid: 10, ask: 9 });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().details[0].field).toBe("body/ask");
    expect((await call("PUT", "/sandbox/v1/prices/999999", op.headers, { bid: 10, ask: 11 })).statusCode).toBe(404);
  });

  it("plays a path at once, from a list or from CSV, one tick per price", async () => {
    const r = await sandbox("POST", `/sandbox/v1/prices/${BTC}/path`, { prices: [60000, { bid: 61000, ask: 61010 }] });
    expect(r).toMatchObject({ instrumentId: BTC, played: 2, queued: 0 });
    expect(r.quote).toMatchObject({ bid: 61000, ask: 61010 });
    const csv = await sandbox("POST", `/sandbox/v1/prices/${BTC}/path`, { csv: "bid,ask\n62000,62010\n63000,63020\n" });
    expect(csv).toMatchObject({ played: 2, queued: 0 });
    expect(csv.quote).toMatchObject({ bid: 63000, ask: 63020 });
    const wrong = await call("POST", `/sandbox/v1/prices/${BTC}/path`, op.headers, { csv: "1\nx,y\n" });
    expect(wrong.statusCode).toBe(422);
  });

  it("pauses everything, queues a path for the ticks, and steps through it one tick at a time", async () => {
    const paused = await sandbox("POST", "/sandbox/v1/market/pause", {});
    expect(paused.allPaused).toBe(true);
    // A timed tick (no manual flag) moves nothing while paused.
    const quiet = await h.deps.market.tick();
    expect(quiet).toHaveLength(0);
    const queued = await sandbox("POST", `/sandbox/v1/prices/${AAPL}/path`, { prices: [101, 102, 103], run: "ticks" });
    expect(queued).toMatchObject({ played: 0, queued: 3 });
    expect((await sandbox("GET", "/sandbox/v1/market")).scripted).toEqual([{ instrumentId: AAPL, queued: 3 }]);
    const one = await sandbox("POST", "/sandbox/v1/market/step", {});
    expect(one.moved.map((q: { instrumentId: number }) => q.instrumentId)).toEqual([AAPL]);
    expect(one.moved[0].mid).toBe(101);
    const two = await sandbox("POST", "/sandbox/v1/market/step", { ticks: 2 });
    expect(two.moved[0].mid).toBe(103);
    expect((await sandbox("GET", `/sandbox/v1/prices/${AAPL}`)).queued).toBe(0);
    // A step with everything paused and nothing scripted moves nothing.
    expect((await sandbox("POST", "/sandbox/v1/market/step", {})).moved).toEqual([]);
    const resumed = await sandbox("POST", "/sandbox/v1/market/resume", {});
    expect(resumed).toMatchObject({ allPaused: false, paused: [] });
  });

  it("pauses and resumes one instrument", async () => {
    await currentPriced();
    const r = await sandbox("POST", "/sandbox/v1/market/pause", { instrumentIds: [AAPL] });
    expect(r).toMatchObject({ allPaused: false, paused: [AAPL] });
    expect((await sandbox("GET", `/sandbox/v1/prices/${AAPL}`)).paused).toBe(true);
    const moved = await h.deps.market.tick();
    expect(moved.some((q) => q.instrumentId === AAPL)).toBe(false);
    expect(moved.some((q) => q.instrumentId === BTC)).toBe(true);
    expect((await sandbox("POST", "/sandbox/v1/market/resume", { instrumentIds: [AAPL] })).paused).toEqual([]);
    expect((await call("POST", "/sandbox/v1/market/pause", op.headers, { instrumentIds: [999999] })).statusCode).toBe(
      404,
    );
  });
  const currentPriced = () => sandbox("GET", `/sandbox/v1/prices/${BTC}`);

  it("sets, freezes, advances and resets the clock; trade dates and token expiry follow it", async () => {
    const frozen = await sandbox("PUT", "/sandbox/v1/clock", { at: "2030-01-02T03:04:05.000Z", frozen: true });
    expect(frozen).toMatchObject({ now: "2030-01-02T03:04:05.000Z", frozen: true });
    expect(h.deps.clock.now().toISOString()).toBe("2030-01-02T03:04:05.000Z");
    const { headers } = await h.bearer(["user-info:read"], { ttlSeconds: 300 });
    expect((await call("GET", ME, headers)).statusCode).toBe(200);
    // Past the expiry and the 30 s of tolerated skew.
    const later = await sandbox("POST", "/sandbox/v1/clock/advance", { seconds: 331 });
    expect(later.now).toBe("2030-01-02T03:09:36.000Z");
    const expired = await call("GET", ME, headers);
    expect(expired.statusCode).toBe(401);
    const u = await trader();
    const open = await call("POST", BY_AMOUNT, u.headers, {
      InstrumentID: AAPL,
      IsBuy: true,
      Leverage: 1,
      Amount: 100,
    });
    expect(open.json().orderForOpen.openDateTime).toBe("2030-01-02T03:09:36.000Z");
    const real = await sandbox("DELETE", "/sandbox/v1/clock");
    expect(real).toMatchObject({ frozen: false, offsetMs: 0 });
    expect(Math.abs(Date.parse(real.now) - Date.now())).toBeLessThan(5_000);
  });

  it("sets and resets a demo balance, closes all positions, resets a user", async () => {
    const u = await trader();
    const set = await sandbox("PUT", `/sandbox/v1/accounts/${u.user.username}/balance`, { balance: 1234.56 });
    expect(set).toMatchObject({
      userId: u.user.id,
      username: u.user.username,
      balance: 1234.56,
      startingBalance: 100000,
    });
    const portfolio = async () => (await call("GET", PORTFOLIO, u.headers)).json().clientPortfolio;
    expect((await portfolio()).credit).toBe(1234.56);
    const back = await sandbox("DELETE", `/sandbox/v1/accounts/${u.user.gcid}/balance`);
    expect(back.balance).toBe(100000);
    for (const id of [AAPL, BTC]) {
      const r = await call("POST", BY_AMOUNT, u.headers, { InstrumentID: id, IsBuy: true, Leverage: 1, Amount: 500 });
      expect(r.statusCode, r.body).toBe(200);
    }
    const closed = await sandbox("POST", `/sandbox/v1/accounts/${u.user.id}/close-positions`);
    expect(closed.closedPositionIds).toHaveLength(2);
    expect((await portfolio()).positions).toHaveLength(0);
    expect((await call("GET", HISTORY, u.headers)).json()).toHaveLength(2);
    await call("POST", BY_AMOUNT, u.headers, { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 500 });
    const reset = await sandbox("POST", `/sandbox/v1/accounts/${u.user.username}/reset`);
    expect(reset.closedPositionIds).toHaveLength(1);
    expect((await call("GET", HISTORY, u.headers)).json()).toHaveLength(0);
    expect((await portfolio()).credit).toBe(100000);
    expect((await call("PUT", "/sandbox/v1/accounts/nobody-here/balance", op.headers, { balance: 1 })).statusCode).toBe(
      404,
    );
  });

  describe("faults", () => {
    it("the next N calls of an operation by a credential answer 429 with Retry-After, marked; then it works again", async () => {
      const u = await h.user(["user-info:read"]);
      const other = await h.user(["user-info:read"]);
      const fault = await sandbox("POST", "/sandbox/v1/faults", {
        credentialId: u.keyId,
        operation: "GET /api/v1/me",
        kind: "429",
        count: 2,
        retryAfterSeconds: 7,
      });
      expect(fault).toMatchObject({ remaining: 2, share: null, kind: "429" });
      for (let i = 0; i < 2; i++) {
        const res = await call("GET", ME, u.headers);
        expect(res.statusCode).toBe(429);
        expect(res.headers["retry-after"]).toBe("7");
        expect(res.headers[FAULT_HEADER]).toBe(`429; id=${fault.id}`);
        expect(res.json()).toMatchObject({ errorCode: "TooManyRequests", requestId: res.headers["x-request-id"] });
      }
      expect((await call("GET", ME, other.headers)).statusCode).toBe(200);
      const after = await call("GET", ME, u.headers);
      expect(after.statusCode).toBe(200);
      expect(after.headers[FAULT_HEADER]).toBeUndefined();
      expect((await sandbox("GET", "/sandbox/v1/faults")).faults).toEqual([]);
    });

    it("a share of calls, by operationId, for every credential of a user: every second call answers 503", async () => {
      const u = await h.user(["user-info:read"]);
      const fault = await sandbox("POST", "/sandbox/v1/faults", {
        user: u.user.username,
        operation: "getAuthenticatedUserProfile",
        kind: "503",
        share: 0.5,
      });
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await call("GET", ME, u.headers);
        statuses.push(res.statusCode);
        if (res.statusCode === 503) expect(res.headers["retry-after"]).toBe("2");
      }
      expect(statuses).toEqual([200, 503, 200, 503, 200, 503]);
      const [listed] = (await sandbox("GET", "/sandbox/v1/faults")).faults;
      expect(listed).toMatchObject({ id: fault.id, seen: 6, injected: 3, userId: u.user.id });
      expect(await sandbox("DELETE", `/sandbox/v1/faults/${fault.id}`)).toEqual({ removed: 1 });
      expect((await call("DELETE", `/sandbox/v1/faults/${fault.id}`, op.headers)).statusCode).toBe(404);
    });

    it("500 and a delay; `*` matches every operation; sandbox paths are never faulted", async () => {
      const u = await h.user(["user-info:read", "notifications:read"]);
      await sandbox("POST", "/sandbox/v1/faults", { credentialId: u.keyId, operation: "*", kind: "500" });
      const failed = await call("GET", "/api/v1/notifications/messages", u.headers);
      expect(failed.statusCode).toBe(500);
      expect(failed.json().errorCode).toBe("GeneralError");
      expect(failed.headers[FAULT_HEADER]).toMatch(/^500; id=/);
      await sandbox("POST", "/sandbox/v1/faults", {
        credentialId: u.keyId,
        operation: "getAuthenticatedUserProfile",
        kind: "delay",
        delayMs: 300,
      });
      const started = performance.now();
      const slow = await call("GET", ME, u.headers);
      expect(slow.statusCode, slow.body).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      expect(slow.headers[FAULT_HEADER]).toMatch(/^delay; id=/);
      await sandbox("POST", "/sandbox/v1/faults", { credentialId: op.keyId, operation: "*", kind: "500", count: 5 });
      expect((await sandbox("GET", "/sandbox/v1/faults")).faults).toHaveLength(1);
      expect(await sandbox("DELETE", "/sandbox/v1/faults")).toEqual({ removed: 1 });
    });

    it("refuses a fault naming neither or both of a credential and a user, or both count and share", async () => {
      const bad = [
        { operation: "*", kind: "429" },
        { credentialId: "x", user: "demo", operation: "*", kind: "429" },
        { credentialId: "x", operation: "*", kind: "429", count: 1, share: 0.5 },
        { credentialId: "x", operation: "*", kind: "418" },
      ];
      for (const payload of bad)
        expect((await call("POST", "/sandbox/v1/faults", op.headers, payload)).statusCode).toBe(422);
    });
  });

  describe("the operator's scope", () => {
    it("no ordinary key pair, token or scope list reaches the controls", async () => {
      const ordinary = await h.user(["trade.demo:write", "user-info:read"]);
      const refused = await call("GET", "/sandbox/v1/clock", ordinary.headers);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().details).toEqual([
        { field: "scopes", message: `${h.config.scopePrefix}:${OPERATOR_SCOPE}` },
      ]);
      const operator = withActor(h.deps, systemActor("test"));
      await expect(createKeyPair(operator, { user: ordinary.user.id, scopes: [OPERATOR_SCOPE] })).rejects.toMatchObject(
        { code: "ValidationFailed" },
      );
      await expect(h.bearer([OPERATOR_SCOPE])).rejects.toMatchObject({ code: "ValidationFailed" });
      const discovery = (await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" })).json();
      expect(discovery.scopes_supported).not.toContain(`${h.config.scopePrefix}:${OPERATOR_SCOPE}`);
    });

    it("the OpenAPI document lists the controls under their own tag, for the key pair only", async () => {
      const doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
      const put = doc.paths["/sandbox/v1/prices/{instrumentId}"].put;
      expect(put.tags).toEqual(["Sandbox"]);
      expect(put.security).toEqual([
        {
          apiKey: [`${h.config.scopePrefix}:${OPERATOR_SCOPE}`],
          userKey: [`${h.config.scopePrefix}:${OPERATOR_SCOPE}`],
        },
      ]);
    });
  });

  describe("the world", () => {
    it("saves a snapshot and resets to it, with progress; triggers, prices and trades follow", async () => {
      const u = await trader();
      await sandbox("PUT", `/sandbox/v1/prices/${AAPL}`, { bid: 300, ask: 300.1 });
      const open = await call("POST", BY_AMOUNT, u.headers, {
        InstrumentID: AAPL,
        IsBuy: true,
        Leverage: 1,
        Amount: 1000,
        StopLossRate: 290,
      });
      expect(open.statusCode).toBe(200);
      const saved = await sandbox("POST", "/sandbox/v1/world/snapshots", { name: "one-long" });
      expect(saved).toMatchObject({ name: "one-long" });
      expect(saved.rows).toBeGreaterThan(0);
      expect(
        (await sandbox("GET", "/sandbox/v1/world/snapshots")).snapshots.map((s: { name: string }) => s.name),
      ).toContain("one-long");
      await sandbox("POST", `/sandbox/v1/accounts/${u.user.id}/close-positions`);
      const later = await trader();
      const reset = await sandbox("POST", "/sandbox/v1/world/reset", { snapshot: "one-long" });
      expect(reset.source).toBe("one-long");
      expect(reset.steps.map((s: { step: string }) => s.step)).toEqual(
        expect.arrayContaining([
          "emptied",
          "restored users",
          "restored demo_positions",
          "watched triggers",
          "prices at their seed",
        ]),
      );
      // The position is open again and watched: a price under its stop closes it.
      expect((await call("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(1);
      expect((await call("GET", ME, later.headers)).statusCode).toBe(401);
      await sandbox("PUT", `/sandbox/v1/prices/${AAPL}`, { bid: 280, ask: 280.1 });
      expect((await call("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(0);
      // A new position gets the next id after the restored ones (identity counters follow).
      const again = await call("POST", BY_AMOUNT, u.headers, {
        InstrumentID: AAPL,
        IsBuy: true,
        Leverage: 1,
        Amount: 100,
      });
      expect(again.statusCode, again.body).toBe(200);
      expect((await call("POST", "/sandbox/v1/world/reset", op.headers, { snapshot: "nope" })).statusCode).toBe(404);
    });

    it("a reset is seen by cached social reads at once: posts made since are gone, and the feeds' likes", async () => {
      const u = await h.user(["feed:read", "feed:write"]);
      const kept = (await call("POST", "/api/v1/posts", u.headers, { message: "Before the snapshot" })).json().id;
      await sandbox("POST", "/sandbox/v1/world/snapshots", { name: "social" });
      const later = (await call("POST", "/api/v1/posts", u.headers, { message: "After the snapshot" })).json().id;
      expect((await call("POST", `/api/v1/posts/${kept}/likes`, u.headers)).statusCode).toBeLessThan(300);
      const feed = `/api/v1/feeds/user/${u.user.gcid}`;
      // Read (and so cached) before the reset.
      expect((await call("GET", `/api/v1/posts/${later}`, u.headers)).statusCode).toBe(200);
      expect((await call("GET", `/api/v1/posts/${kept}`, u.headers)).json().requesterContext.isLiking).toBe(true);
      expect((await call("GET", feed, u.headers)).json().discussions).toHaveLength(2);
      await sandbox("POST", "/sandbox/v1/world/reset", { snapshot: "social" });
      expect((await call("GET", `/api/v1/posts/${later}`, u.headers)).statusCode).toBe(404);
      const post = (await call("GET", `/api/v1/posts/${kept}`, u.headers)).json();
      expect(post.requesterContext.isLiking).toBe(false);
      expect(post.emotionsData.like.paging.totalCount).toBe(0);
      expect((await call("GET", feed, u.headers)).json().discussions.map((d: { id: string }) => d.id)).toEqual([kept]);
    });

    it("resets to the seed: the demo world and nothing else (the caller's own key pair is gone too)", async () => {
      const reset = await sandbox("POST", "/sandbox/v1/world/reset", {});
      expect(reset.source).toBe("seed");
      expect(reset.steps.some((s: { step: string }) => s.step.startsWith("seeded user demo"))).toBe(true);
      const users = (await h.deps.db.kysely.selectFrom("users").select("username").execute()).map((u) => u.username);
      expect(users).toEqual(expect.arrayContaining(["alice", "bob", "carmen", "demo"]));
      expect(users).not.toContain(op.user.username);
      // The only positions are the seeded traders' (their replayed history's live book).
      const owners = await h.deps.db.kysely
        .selectFrom("demoPositions")
        .innerJoin("users", "users.id", "demoPositions.userId")
        .select("users.username")
        .execute();
      for (const { username } of owners) expect(["alice", "bob", "carmen", "demo"]).toContain(username);
      expect((await call("GET", "/sandbox/v1/clock", op.headers)).statusCode).toBe(401);
    });
  });
});
