import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { RedisLease } from "../../src/infra/lease/redis.js";
import type { Deps } from "../../src/modules/context.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { type Harness, startHarness, type TestUser } from "../support/harness.js";
import { REDIS_TEST_URL } from "../support/services.js";
import { AAPL, type Answer, BY_AMOUNT, send, until } from "./load.js";
import { TcpProxy } from "./tcp-proxy.js";

/** The longest one request may take while Redis hangs (the rate limiter's command timeout is 1 s). */
const BOUND_MS = 2_500;

function capturedLog() {
  const lines: { msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), said: (text: string) => lines.some((l) => l.msg.includes(text)) };
}

/**
 * Redis cut and frozen through a TCP proxy in front of the shared Redis (which is never
 * stopped), with two instances on one store (docs/decisions/0107). The rate limiter's own outage
 * behaviour is in test/ratelimit/redis.test.ts; here, the whole app: reads, orders (which
 * broadcast events), limits, the bus between instances, and the market lease.
 */
describe.each(inject("services").redis ? [REDIS_TEST_URL] : [])(
  "Redis cut and frozen under a running app (%s)",
  (url) => {
    let proxy: TcpProxy;
    let h: Harness;
    let b: { app: App; deps: Deps };
    const captured = capturedLog();

    beforeAll(async () => {
      const real = new URL(url);
      proxy = new TcpProxy(real.hostname, Number(real.port || 6379));
      await proxy.start();
      h = await startHarness("sqlite", {
        env: {
          REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
          REDIS_NAMESPACE: `faults-${randomBytes(4).toString("hex")}`,
        },
        log: captured.log,
      });
      const deps = await createDeps(h.config, { log: h.deps.log, clock: h.deps.clock });
      b = { deps, app: await buildApp(deps.config, deps) };
    }, 30_000);
    afterAll(async () => {
      proxy?.restore();
      await b?.app.close();
      if (b) await closeDeps(b.deps);
      await h?.close();
      await proxy?.close();
    });

    /** An order with a stop-loss: instance b learns of it through the bus (its trigger index). */
    async function orderWithStop(u: TestUser): Promise<Answer> {
      const q = (await currentQuotes(h.deps, [AAPL])).get(AAPL)!;
      const started = Date.now();
      const res = await h.app.inject({
        method: "POST",
        url: BY_AMOUNT,
        headers: { ...u.headers, "x-request-id": crypto.randomUUID() },
        payload: { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 10, StopLossRate: q.bid * 0.5 },
      });
      return {
        kind: "order",
        requestId: "",
        status: res.statusCode,
        body: res.json(),
        headers: res.headers,
        ms: Date.now() - started,
      };
    }

    /** The bus carries an order from a to b again, and the limiter counts in Redis again. */
    async function recovered(u: TestUser): Promise<boolean> {
      const before = b.deps.triggers.index.size;
      expect((await orderWithStop(u)).status).toBe(200);
      const carried = await until(async () => b.deps.triggers.index.size > before, 1_500);
      const shared = !(h.deps.rateLimits as { isDegraded?: boolean }).isDegraded;
      return carried && shared;
    }

    /** Requests of every kind while Redis is away: all answered, each within the bound. */
    async function serveThrough(u: TestUser, seconds: number): Promise<Answer[]> {
      const answers: Answer[] = [];
      const deadline = Date.now() + seconds * 1000;
      while (Date.now() < deadline) {
        answers.push(await send(h.app, u.headers, "read"));
        answers.push(await orderWithStop(u));
        answers.push(await send(b.app, u.headers, "read"));
      }
      return answers;
    }

    for (const fault of ["frozen", "cut"] as const) {
      it(`Redis ${fault}: every request answered 200 within ${BOUND_MS} ms, and shared again once it returns`, async () => {
        const u = await h.user(["trade.demo:write"]);
        expect(await until(() => recovered(u))).toBe(true);
        if (fault === "frozen") proxy.freeze();
        else proxy.cut();
        let answers: Answer[];
        try {
          answers = await serveThrough(u, 3);
        } finally {
          proxy.restore();
        }
        expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body])).toEqual([]);
        expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(BOUND_MS);
        // Only the first requests of the outage pay a command timeout, not every request.
        expect(answers.filter((a) => a.ms >= 900).length).toBeLessThanOrEqual(4);
        expect(captured.said("event bus")).toBe(true);
        expect(await until(() => recovered(u), 15_000)).toBe(true);
      }, 30_000);
    }

    it("a frozen Redis does not hold the market lease's tick loop: the lease is given up within its timeout", async () => {
      const lease = await RedisLease.open(
        `redis://127.0.0.1:${proxy.port}`,
        `faults-lease-${randomBytes(4).toString("hex")}`,
        1_500,
        captured.log,
      );
      try {
        expect(await lease.acquire()).toBe(true);
        proxy.freeze();
        const started = Date.now();
        expect(await lease.acquire()).toBe(false);
        expect(Date.now() - started).toBeLessThan(1_500);
        proxy.restore();
        expect(await until(() => lease.acquire(), 10_000)).toBe(true);
      } finally {
        proxy.restore();
        await lease.close();
      }
    }, 20_000);
  },
);
