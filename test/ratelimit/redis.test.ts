import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import type { Config } from "../../src/config.js";
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

/** Another instance of the same deployment: its own buildApp, same database and REDIS_URL. */
const secondInstance = (h: Harness, config: Partial<Config> = {}) => buildApp({ ...h.config, ...config }, h.deps);

// The shared Redis at 127.0.0.1:6379 is mandatory under CI (global setup); locally the suite
// runs when it is up.
describe.each(inject("services").redis ? [REDIS_TEST_URL] : [])("rate limits shared through Redis at %s", (url) => {
  let h: Harness;
  let a: App;
  let b: App;
  beforeAll(async () => {
    h = await startHarness("sqlite", { rateLimits: "defaults", env: { REDIS_URL: url } });
    a = h.app;
    b = await secondInstance(h);
  });
  afterAll(async () => {
    await b.close();
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
    const short = await secondInstance(h, { rateLimits: { enabled: true, pools } });
    try {
      const u = await h.user(["user-info:read"]);
      for (let i = 0; i < 3; i++) expect((await call(short, u.headers)).statusCode).toBe(200);
      const refused = await call(short, u.headers);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBe("1");
      await until(async () => (await call(short, u.headers)).statusCode === 200, 3_000);
    } finally {
      await short.close();
    }
  });
});

describe("with REDIS_URL pointing at nothing", () => {
  it("the server starts and answers, limiting per instance, and says so once", async () => {
    const captured = capturedLog();
    const h = await startHarness("sqlite", {
      env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, RATE_LIMIT_DEFAULT: "2/60s" },
      log: captured.log,
    });
    try {
      const u = await h.user(["user-info:read"]);
      expect((await call(h.app, u.headers)).headers["ratelimit-remaining"]).toBe("1");
      expect((await call(h.app, u.headers)).statusCode).toBe(200);
      const refused = await call(h.app, u.headers);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBe("60");
      expect(captured.lines.filter((l) => l.msg.includes("redis unreachable"))).toHaveLength(1);
    } finally {
      await h.close();
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
    const captured = capturedLog();
    beforeAll(async () => {
      server = new TestRedisServer(await freePort());
      // Redis is not running yet: the instances must start anyway.
      h = await startHarness("sqlite", {
        env: { REDIS_URL: server.url, RATE_LIMIT_DEFAULT: "5/60s" },
        log: captured.log,
      });
      b = await secondInstance(h);
    });
    afterAll(async () => {
      await b.close();
      await h.close();
      await server.stop();
    });

    it("serves while Redis is down, shares once it is up, and again after a restart", async () => {
      const u = await h.user(["user-info:read"]);
      // Down at start: each instance limits on its own (5 each), still answering with headers.
      for (const app of [h.app, b]) {
        for (let i = 1; i <= 5; i++) {
          const res = await call(app, u.headers);
          expect(res.statusCode).toBe(200);
          expect(res.headers["ratelimit-remaining"]).toBe(String(5 - i));
        }
        expect((await call(app, u.headers)).statusCode).toBe(429);
      }
      expect(captured.said("redis unreachable; limiting per instance")).toBe(true);

      // Redis comes up: both instances go back to the one shared budget by themselves.
      await server.start();
      await until(sharedAgain);
      expect(captured.said("redis reachable again; shared limits resumed")).toBe(true);

      // Redis stops mid-test: requests keep being answered, limited per instance.
      const warningsBefore = captured.lines.filter((l) => l.level === 40).length;
      await server.stop();
      const v = await h.user(["user-info:read"]);
      for (const app of [h.app, b]) {
        const during = await call(app, v.headers);
        expect(during.statusCode).toBe(200);
        expect(during.headers["ratelimit-limit"]).toBe("5");
        // Each instance counts alone while Redis is away.
        expect(during.headers["ratelimit-remaining"]).toBe("4");
      }
      // One line per instance for the outage, not one per request.
      for (let i = 0; i < 5; i++) await call(h.app, v.headers);
      expect(captured.lines.filter((l) => l.level === 40).length).toBe(warningsBefore + 2);

      // Restarted (empty, as Redis without persistence): shared again, no restart of the app.
      await server.start();
      await until(sharedAgain);
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
