import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { systemActor } from "../../src/core/actor.js";
import { ErrorBody } from "../../src/http/schemas.js";
import { withActor } from "../../src/modules/context.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { engines, type Harness, type Headers, rid, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const ME = "/api/v1/me";
const NOTIFICATIONS = "/api/v1/notifications/messages";

/** A clock the test moves by hand; the memory store's windows follow it. */
function manualClock(start = Date.parse("2026-03-01T12:00:00.000Z")) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
}

const limitHeaders = (res: { headers: Record<string, unknown> }) => ({
  limit: res.headers["ratelimit-limit"],
  remaining: res.headers["ratelimit-remaining"],
  reset: res.headers["ratelimit-reset"],
  policy: res.headers["ratelimit-policy"],
});

describe.each(engines())("rate limits (memory store, real defaults) on %s", (engine) => {
  let h: Harness;
  const clock = manualClock();
  beforeAll(async () => {
    h = await startHarness(engine, { rateLimits: "defaults", clock });
  });
  afterAll(async () => h.close());

  const call = (headers: Headers, method: "GET" | "PATCH" = "GET", url = ME, app: App = h.app) =>
    app.inject({ method, url, headers: { ...headers, "x-request-id": rid() } });

  it("admits the 60th request of a window, refuses the 61st with 429, Retry-After and the headers", async () => {
    const u = await h.user(["user-info:read"]);
    for (let i = 1; i <= 60; i++) {
      const res = await call(u.headers);
      expect(res.statusCode).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: "60", remaining: String(60 - i), reset: "60", policy: "60;w=60" });
    }
    clock.advance(20_000);
    const refused = await call(u.headers);
    expect(refused.statusCode).toBe(429);
    expectSchema(ErrorBody, refused.json());
    expect(refused.json().errorCode).toBe("TooManyRequests");
    expect(refused.json().requestId).toBe(refused.headers["x-request-id"]);
    expect(refused.headers["retry-after"]).toBe("40");
    expect(limitHeaders(refused)).toEqual({ limit: "60", remaining: "0", reset: "40", policy: "60;w=60" });

    // The window resets 60 s after its first request: then a fresh budget.
    clock.advance(39_999);
    expect((await call(u.headers)).statusCode).toBe(429);
    clock.advance(1);
    const fresh = await call(u.headers);
    expect(fresh.statusCode).toBe(200);
    expect(limitHeaders(fresh)).toEqual({ limit: "60", remaining: "59", reset: "60", policy: "60;w=60" });
  });

  it("notifications GET: 1 per second on top of the default pool; the refused call spends no default budget", async () => {
    const u = await h.user(["notifications:read", "user-info:read"]);
    const first = await call(u.headers, "GET", NOTIFICATIONS);
    expect(first.statusCode).toBe(200);
    // The per-second limit binds: nothing left until it resets.
    expect(limitHeaders(first)).toEqual({ limit: "1", remaining: "0", reset: "1", policy: "1;w=1" });
    const second = await call(u.headers, "GET", NOTIFICATIONS);
    expect(second.statusCode).toBe(429);
    expect(second.headers["retry-after"]).toBe("1");
    expect(limitHeaders(second).policy).toBe("1;w=1");
    // Default pool: 1 (first notifications read) + this one; the refused read took nothing.
    expect(limitHeaders(await call(u.headers)).remaining).toBe("58");
    clock.advance(1_000);
    expect((await call(u.headers, "GET", NOTIFICATIONS)).statusCode).toBe(200);
    expect(limitHeaders(await call(u.headers)).remaining).toBe("56");
  });

  it("writes spend the default pool and the writes pool of 20 per 60 s", async () => {
    const u = await h.user(["notifications:write", "user-info:read"]);
    for (let i = 1; i <= 20; i++) {
      const res = await call(u.headers, "PATCH", NOTIFICATIONS);
      expect(res.statusCode).toBe(204);
      expect(limitHeaders(res)).toEqual({ limit: "20", remaining: String(20 - i), reset: "60", policy: "20;w=60" });
    }
    const refused = await call(u.headers, "PATCH", NOTIFICATIONS);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().errorCode).toBe("TooManyRequests");
    expect(limitHeaders(refused).policy).toBe("20;w=60");
    // Reads still go through on the default pool, which the 20 writes spent and the 21st did not.
    const read = await call(u.headers);
    expect(read.statusCode).toBe(200);
    expect(limitHeaders(read).remaining).toBe("39");
  });

  it("200 parallel requests from one caller admit exactly 60", async () => {
    const u = await h.user(["user-info:read"]);
    const all = await Promise.all(Array.from({ length: 200 }, () => call(u.headers)));
    const statuses = all.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(140);
    const remaining = all.filter((r) => r.statusCode === 200).map((r) => Number(r.headers["ratelimit-remaining"]));
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it("error responses to a known caller (422, 403) carry the headers and spend the budget; refused credentials (401) spend none", async () => {
    const u = await h.user(["notifications:read", "user-info:read"]);
    const { "x-request-id": _drop, ...noRequestId } = u.headers;
    const invalid = await h.app.inject({ method: "GET", url: NOTIFICATIONS, headers: noRequestId });
    expect(invalid.statusCode).toBe(422);
    expect(limitHeaders(invalid)).toEqual({ limit: "1", remaining: "0", reset: "1", policy: "1;w=1" });

    const anonymous = await h.app.inject({ method: "GET", url: ME });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers["ratelimit-limit"]).toBeUndefined();
    const wrongScope = await call(u.headers, "PATCH", NOTIFICATIONS);
    expect(wrongScope.statusCode).toBe(403);
    // A PATCH spends the default and the writes pools; the writes pool (20) binds.
    expect(limitHeaders(wrongScope)).toMatchObject({ limit: "20", remaining: "19" });

    // Default pool: the 422, the 403 and this call; the 401 spent nothing.
    expect(limitHeaders(await call(u.headers)).remaining).toBe("57");
  });

  it("the caller is the user and the credential: each key pair and each user has its own budget", async () => {
    const tiny = await h.tinyLimitApp();
    const a = await h.user(["user-info:read"]);
    const b = await h.user(["user-info:read"]);
    const second = await createKeyPair(withActor(h.deps, systemActor("test")), {
      user: a.user.id,
      scopes: ["user-info:read"],
      appName: "another-app",
    });
    const a2 = { "x-api-key": second.apiKey, "x-user-key": second.userKey };
    expect((await call(a.headers, "GET", ME, tiny)).statusCode).toBe(200);
    expect((await call(a.headers, "GET", ME, tiny)).statusCode).toBe(429);
    expect((await call(a2, "GET", ME, tiny)).statusCode).toBe(200);
    expect((await call(b.headers, "GET", ME, tiny)).statusCode).toBe(200);
  });
});

describe("rate-limit configuration on a running app", () => {
  let on: Harness;
  let off: Harness;
  beforeAll(async () => {
    [on, off] = await Promise.all([
      startHarness("sqlite", { rateLimits: "defaults" }),
      startHarness("sqlite", { env: { RATE_LIMITS_ENABLED: "false" } }),
    ]);
  });
  afterAll(async () => Promise.all([on.close(), off.close()]));

  it("RATE_LIMITS_ENABLED=false: no limit and no RateLimit headers", async () => {
    const u = await off.user(["user-info:read"]);
    const all = await Promise.all(Array.from({ length: 80 }, () => off.app.inject({ url: ME, headers: u.headers })));
    expect(all.every((r) => r.statusCode === 200)).toBe(true);
    expect(all[0]!.headers["ratelimit-limit"]).toBeUndefined();
  });

  it("the OpenAPI document states each operation's pools", async () => {
    const doc = (await on.app.inject({ url: "/openapi.json" })).json();
    expect(doc.paths[NOTIFICATIONS].get.description).toContain(
      "Rate limit: default pool, 60 requests per 60 s; plus notifications pool, 1 request per 1 s, per caller.",
    );
    expect(doc.paths[NOTIFICATIONS].patch.description).toBe(
      "Rate limit: default pool, 60 requests per 60 s; plus writes pool, 20 requests per 60 s, per caller.",
    );
    expect(doc.paths[ME].get.description).toBe("Rate limit: default pool, 60 requests per 60 s, per caller.");
    const offDoc = (await off.app.inject({ url: "/openapi.json" })).json();
    expect(offDoc.paths[ME].get.description).toBe("Rate limits are off on this server.");
  });
});
