import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import type { Config } from "../../src/config.js";
import { RedisRateLimitStore } from "../../src/infra/ratelimit/redis.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { type Harness, type Headers, rid, startHarness } from "../support/harness.js";
import { REDIS_TEST_URL } from "../support/services.js";
import { freePort, TestRedisServer } from "./redis-server.js";

const ME = "/api/v1/me";
const NOTIFICATIONS = "/api/v1/notifications/messages";

const call = (app: App, headers: Headers, url = ME) =>
  app.inject({ method: "GET", url, headers: { ...headers, "x-request-id": rid() } });

/** A real pino logger whose lines the test reads. */
function capturedLog() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return {
    log: pino({ level: "info" }, stream),
    lines,
    said: (text: string) => lines.some((l) => l.msg.includes(text)),
  };
}

async function until(check: () => Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Another instance of the same deployment: its own deps (rate-limit store included) and app, on the
 * same database and REDIS_URL, logging to the same lines.
 */
async function secondInstance(h: Harness, config: Partial<Config> = {}): Promise<Instance> {
  const deps = await createDeps({ ...h.config, ...config }, { log: h.deps.log, clock: h.deps.clock });
  const app = await buildApp(deps.config, deps);
  return {
    app,
    async close() {
      await app.close();
      await closeDeps(deps);
    },
  };
}
interface Instance {
  app: App;
  close(): Promise<void>;
}

// The shared Redis at 127.0.0.1:6379 is mandatory under CI (global setup); locally the suite
// runs when it is up.
describe.each(inject("services").redis ? [REDIS_TEST_URL] : [])("rate limits shared through Redis at %s", (url) => {
  let h: Harness;
  let a: App;
  let b: App;
  let second: Instance;
  beforeAll(async () => {
    h = await startHarness("sqlite", { rateLimits: "defaults", env: { REDIS_URL: url } });
    a = h.app;
    second = await secondInstance(h);
    b = second.app;
  });
  afterAll(async () => {
    await second.close();
    await h.close();
  });

  it("two instances share one budget exactly: 60 across both, the 61st refused on either", async () => {
    const u = await h.user(["user-info:read"]);
    for (let i = 1; i <= 60; i++) {
      const res = await call(i % 2 ? a : b, u.headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers["ratelimit-remaining"]).toBe(String(60 - i));
    }
    for (const app of [a, b]) {
      const refused = await call(app, u.headers);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().errorCode).toBe("TooManyRequests");
      const retry = Number(refused.headers["retry-after"]);
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      expect(refused.headers["ratelimit-reset"]).toBe(String(retry));
    }
  });

  it("200 parallel requests from one caller across two instances admit exactly 60", async () => {
    const u = await h.user(["user-info:read"]);
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i % 2 ? a : b, u.headers)));
    expect(all.filter((r) => r.statusCode === 200)).toHaveLength(60);
    expect(all.filter((r) => r.statusCode === 429)).toHaveLength(140);
  });

  it("a refused request spends no other budget (notifications: 1/s on top of the default pool)", async () => {
    const u = await h.user(["notifications:read", "user-info:read"]);
    expect((await call(a, u.headers, NOTIFICATIONS)).statusCode).toBe(200);
    const refused = await call(b, u.headers, NOTIFICATIONS);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["ratelimit-policy"]).toBe("1;w=1");
    expect((await call(a, u.headers)).headers["ratelimit-remaining"]).toBe("58");
  });

  it("the window resets on Redis's clock", async () => {
    const pools = { ...h.config.rateLimits.pools, default: { max: 3, windowSeconds: 1 } };
    const short = await secondInstance(h, { rateLimits: { enabled: true, profile: "upstream", pools } });
    try {
      const u = await h.user(["user-info:read"]);
      for (let i = 0; i < 3; i++) expect((await call(short.app, u.headers)).statusCode).toBe(200);
      const refused = await call(short.app, u.headers);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBe("1");
      await until(async () => (await call(short.app, u.headers)).statusCode === 200, 3_000);
    } finally {
      await short.close();
    }
  });
});

const OUTAGE = "redis unreachable; limiting per instance";
const RECOVERED = "redis reachable again; shared limits resumed";
const caller = (n: number) => `u:outage-test-${n}`;
const defaultPool = (max: number) => [{ pool: "default", max, windowMs: 60_000 }];

describe("the Redis store with nothing listening at its URL", () => {
  it("counts per instance from the start and says so once", async () => {
    const captured = capturedLog();
    const store = await RedisRateLimitStore.connect({
      url: `redis://127.0.0.1:${await freePort()}`,
      log: captured.log,
      connectTimeoutMs: 500,
    });
    try {
      expect(store.isDegraded).toBe(true);
      const counts = [];
      for (let i = 0; i < 3; i++) counts.push((await store.consume(caller(0), defaultPool(2))).admitted);
      expect(counts).toEqual([true, true, false]);
      expect(captured.lines.filter((l) => l.msg.includes(OUTAGE))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

// Stops and restarts a private redis-server (the binary comes with the Redis that CI requires).
describe.each(inject("services").redis ? ["a private redis-server"] : [])(
  "Redis outage with %s: fail open to per-instance limits, recover by itself",
  () => {
    let server: TestRedisServer;
    let h: Harness;
    let b: App;
    let second: Instance | undefined;
    const captured = capturedLog();
    const outageLines = () => captured.lines.filter((l) => l.msg.includes(OUTAGE)).length;
    beforeAll(async () => {
      server = new TestRedisServer(await freePort());
      await server.start();
      h = await startHarness("sqlite", {
        env: { REDIS_URL: server.url, RATE_LIMIT_DEFAULT: "5/60s" },
        log: captured.log,
      });
      second = await secondInstance(h);
      b = second.app;
    });
    afterAll(async () => {
      await second?.close();
      await h?.close();
      await server.stop();
    });

    it("Redis stopped and restarted mid-test: answers throughout, per instance while down, shared again after", async () => {
      expect(await sharedAgain()).toBe(true);
      const u = await h.user(["user-info:read"]);

      await server.stop();
      // Each instance keeps answering and enforcing the quota with its own counters (5 each).
      for (const app of [h.app, b]) {
        for (let i = 1; i <= 5; i++) {
          const res = await call(app, u.headers);
          expect(res.statusCode).toBe(200);
          expect(res.headers["ratelimit-limit"]).toBe("5");
          expect(res.headers["ratelimit-remaining"]).toBe(String(5 - i));
        }
        const refused = await call(app, u.headers);
        expect(refused.statusCode).toBe(429);
        expect(refused.headers["retry-after"]).toBe("60");
      }
      // One line per instance for the outage, not one per request.
      expect(outageLines()).toBe(2);

      // Restarted (empty, as Redis without persistence): shared again without restarting the app.
      await server.start();
      await until(sharedAgain);
      expect(captured.said(RECOVERED)).toBe(true);
    });

    it("a store that starts while Redis is down recovers when it comes up", async () => {
      const port = await freePort();
      const late = new TestRedisServer(port);
      const log = capturedLog();
      const store = await RedisRateLimitStore.connect({ url: late.url, log: log.log, connectTimeoutMs: 500 });
      try {
        expect((await store.consume(caller(1), defaultPool(5))).admitted).toBe(true);
        expect(store.isDegraded).toBe(true);
        await late.start();
        await until(async () => {
          await store.consume(caller(2), defaultPool(5));
          return !store.isDegraded;
        });
        expect(log.said(RECOVERED)).toBe(true);
        // Now counted in Redis: a fresh caller starts at 1.
        expect((await store.consume(caller(3), defaultPool(5))).states[0]!.count).toBe(1);
      } finally {
        await store.close();
        await late.stop();
      }
    });

    it("a hung Redis delays one request per second by the command timeout, not every request", async () => {
      await until(sharedAgain);
      const u = await h.user(["user-info:read"]);
      server.pause();
      try {
        const started = Date.now();
        const first = await call(h.app, u.headers);
        expect(first.statusCode).toBe(200);
        expect(Date.now() - started).toBeGreaterThanOrEqual(900);
        const next = Date.now();
        for (let i = 0; i < 3; i++) expect((await call(h.app, u.headers)).statusCode).toBe(200);
        expect(Date.now() - next).toBeLessThan(500);
      } finally {
        server.resume();
      }
      await until(sharedAgain);
    });

    /** True once both instances spend one budget: a fresh caller's calls on a, b, a leave 4, 3, 2. */
    async function sharedAgain(): Promise<boolean> {
      const x = await h.user(["user-info:read"]);
      const seen: unknown[] = [];
      for (const app of [h.app, b, h.app]) seen.push((await call(app, x.headers)).headers["ratelimit-remaining"]);
      return seen.join() === "4,3,2";
    }
  },
);
