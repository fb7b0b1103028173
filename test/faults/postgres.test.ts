import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { PG_ADMIN_URL } from "../support/services.js";
import { AAPL, type Answer, BY_AMOUNT, ORDER, runLoad, send, sleep, unavailableProblem, until } from "./load.js";
import { TcpProxy } from "./tcp-proxy.js";

/** The longest any request may take while the database is away (a hang fails the test). */
const BOUND_MS = 8_000;

/**
 * PostgreSQL going away under load and coming back (docs/decisions/0107): through a TCP proxy we
 * cut, and by terminating every backend of this suite's own database. The shared server is never
 * stopped.
 */
describe.each(engines().filter((e) => e === "postgres"))("PostgreSQL restarted under load (%s)", (engine) => {
  let proxy: TcpProxy;
  let h: Harness;
  let database: string;
  const startingCredit = 100_000;

  beforeAll(async () => {
    const real = new URL(PG_ADMIN_URL);
    proxy = new TcpProxy(real.hostname, Number(real.port || 5432));
    await proxy.start();
    h = await startHarness(engine, {
      // A statement waits at most 1.5 s for a frozen server (the default is 10 s).
      env: { RATE_LIMITS_ENABLED: "false", DATABASE_QUERY_TIMEOUT_MS: "1500" },
      storeAddress: (url) => {
        const u = new URL(url);
        database = u.pathname.slice(1);
        u.hostname = "127.0.0.1";
        u.port = String(proxy.port);
        return u.toString();
      },
    });
  }, 30_000);
  afterAll(async () => {
    proxy?.restore();
    await h?.close();
    await proxy?.close();
  });

  /** Every answer is a 200 or a clean 503, and none took longer than the bound. */
  function expectClean(answers: Answer[]) {
    const problems = answers
      .filter((a) => a.status !== 200)
      .map(unavailableProblem)
      .filter((p) => p !== undefined);
    expect(problems.slice(0, 5)).toEqual([]);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(BOUND_MS);
  }

  /**
   * No order half-written and none doubled: every order is retried with its own x-request-id
   * until it answers 200 (a replay when it had committed), and then the positions are exactly
   * those orders and the cash is what they cost.
   */
  async function expectOrdersWhole(u: TestUser, answers: Answer[]) {
    const orders = answers.filter((a) => a.kind === "order");
    const positions = new Set<number>();
    for (const o of orders) {
      const final = o.status === 200 ? o : await send(h.app, u.headers, "order", o.requestId);
      expect(final.status, JSON.stringify(final.body)).toBe(200);
      positions.add(final.body.orderForOpen.positionID);
    }
    expect(positions.size).toBe(orders.length);
    const portfolio = (await send(h.app, u.headers, "read")).body.clientPortfolio;
    expect(portfolio.positions.map((p: { positionID: number }) => p.positionID).sort()).toEqual([...positions].sort());
    expect(portfolio.credit).toBeCloseTo(startingCredit - ORDER.Amount * orders.length, 2);
  }

  const healthy = async (u: TestUser) => (await send(h.app, u.headers, "read")).status === 200;

  it("the link cut for a while: 503s in the one body, no hang, no half-written order, and back by itself", async () => {
    const u = await h.user(["trade.demo:write"]);
    const load = runLoad(h.app, u.headers);
    await sleep(300);
    proxy.cut();
    await sleep(1_500);
    proxy.restore();
    expect(await until(() => healthy(u))).toBe(true);
    await sleep(300);
    const answers = await load.stop();
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    expectClean(answers);
    await expectOrdersWhole(u, answers);
    const ready = await h.app.inject({ method: "GET", url: "/ready" });
    expect(ready.statusCode).toBe(200);
  }, 30_000);

  it("the link frozen (accepts, never answers): 503s within the query and connect timeouts, then back by itself", async () => {
    const u = await h.user(["trade.demo:write"]);
    const load = runLoad(h.app, u.headers);
    await sleep(300);
    proxy.freeze();
    // Longer than the bound: a request that waited for the frozen link would fail the test.
    await sleep(BOUND_MS + 1_000);
    proxy.restore();
    expect(await until(() => healthy(u))).toBe(true);
    await sleep(300);
    const answers = await load.stop();
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expectClean(answers);
    await expectOrdersWhole(u, answers);
  }, 30_000);

  it("every backend terminated (as a restart does), twice: the pool reconnects and nothing is lost", async () => {
    const u = await h.user(["trade.demo:write"]);
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      const load = runLoad(h.app, u.headers);
      let terminated = 0;
      for (let round = 0; round < 2; round++) {
        await sleep(300);
        const { rows } = await admin.query(
          "select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
          [database],
        );
        terminated += rows.length;
      }
      await sleep(300);
      expect(await until(() => healthy(u))).toBe(true);
      const answers = await load.stop();
      expect(terminated).toBeGreaterThan(0);
      expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
      expectClean(answers);
      await expectOrdersWhole(u, answers);
    } finally {
      await admin.end();
    }
  }, 30_000);

  it("a stop-loss crossed while the database is away is not forgotten: it closes once the database is back", async () => {
    const u = await h.user(["trade.demo:write"]);
    const q = (await currentQuotes(h.deps, [AAPL])).get(AAPL)!;
    const open = await h.app.inject({
      method: "POST",
      url: BY_AMOUNT,
      headers: { ...u.headers, "x-request-id": crypto.randomUUID() },
      payload: { ...ORDER, StopLossRate: Number((q.bid * 0.9).toFixed(2)) },
    });
    expect(open.statusCode).toBe(200);
    const positionId = open.json().orderForOpen.positionID as number;
    // The price falls through the stop and stays there; the first ticks come while the link is cut.
    const low = q.mid * 0.8;
    h.deps.market.useSource(new RecordedSource({ [AAPL]: Array(20).fill(low) }, h.deps.market.steps));
    proxy.cut();
    try {
      await h.deps.market.tick();
      await h.deps.market.tick();
    } finally {
      proxy.restore();
    }
    const closed = async () => {
      await h.deps.market.tick();
      const history = await h.app.inject({
        method: "GET",
        url: "/api/v1/trading/info/trade/demo/history",
        headers: { ...u.headers, "x-request-id": crypto.randomUUID() },
      });
      return (
        history.statusCode === 200 && history.json().some((t: { positionId: number }) => t.positionId === positionId)
      );
    };
    expect(await until(closed)).toBe(true);
    const history = await h.app.inject({
      method: "GET",
      url: "/api/v1/trading/info/trade/demo/history",
      headers: { ...u.headers, "x-request-id": crypto.randomUUID() },
    });
    expect(history.json().filter((t: { positionId: number }) => t.positionId === positionId)).toHaveLength(1);
  }, 30_000);

  it("a bearer token checked while the database is away is a 503, not a 401 that would send the client to sign in again", async () => {
    const { headers } = await h.bearer(["trade.demo:write"]);
    proxy.cut();
    let during: Answer;
    try {
      during = await send(h.app, headers, "read");
    } finally {
      proxy.restore();
    }
    expect(unavailableProblem(during)).toBeUndefined();
    expect(await until(async () => (await send(h.app, headers, "read")).status === 200)).toBe(true);
  }, 30_000);
});
