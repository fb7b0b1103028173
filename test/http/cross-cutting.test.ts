import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOG_REDACT } from "../../src/app.js";
import { engines, type Harness, rid, startHarness } from "../support/harness.js";

const NOTIFICATIONS = "/api/v1/notifications/messages";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Captures every log line the app writes, as parsed JSON. */
function captureLogs() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: pino({ level: "info", redact: { paths: LOG_REDACT, censor: "[redacted]" } }, stream) };
}

describe.each(engines())("cross-cutting HTTP behaviour on %s", (engine) => {
  let h: Harness;
  const logs = captureLogs();
  beforeAll(async () => {
    h = await startHarness(engine, { log: logs.log });
  });
  afterAll(async () => h.close());

  it("echoes a client's x-request-id and makes a uuid when none is sent", async () => {
    const given = await h.app.inject({ method: "GET", url: "/health", headers: { "x-request-id": "abc-123" } });
    expect(given.headers["x-request-id"]).toBe("abc-123");
    const made = await h.app.inject({ method: "GET", url: "/health" });
    expect(made.headers["x-request-id"]).toMatch(UUID);
    const unknown = await h.app.inject({ method: "GET", url: "/api/v1/nothing-here" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ errorCode: "NotFound", requestId: unknown.headers["x-request-id"] });
  });

  it("replaces an unusable x-request-id (too long or odd characters) with its own", async () => {
    const res = await h.app.inject({ method: "GET", url: "/health", headers: { "x-request-id": "x".repeat(300) } });
    expect(res.headers["x-request-id"]).toMatch(UUID);
  });

  it("takes JSON bodies only: 415 for another type, 400 for malformed JSON, 413 above the limit", async () => {
    const u = await h.user(["notifications:write"]);
    const patch = (headers: Record<string, string>, payload: string) =>
      h.app.inject({
        method: "PATCH",
        url: NOTIFICATIONS,
        headers: { ...u.headers, "x-request-id": rid(), ...headers },
        payload,
      });

    const text = await patch({ "content-type": "text/plain" }, "hello");
    expect(text.statusCode).toBe(415);
    expect(text.json().errorCode).toBe("UnsupportedMediaType");

    const form = await patch({ "content-type": "application/x-www-form-urlencoded" }, "a=1");
    expect(form.statusCode).toBe(415);

    const malformed = await patch({ "content-type": "application/json" }, "{not json");
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ errorCode: "BadRequest", requestId: malformed.headers["x-request-id"] });

    const huge = await patch(
      { "content-type": "application/json" },
      JSON.stringify({ pad: "x".repeat(h.config.bodyLimit) }),
    );
    expect(huge.statusCode).toBe(413);
    expect(huge.json().errorCode).toBe("PayloadTooLarge");
  });

  it("treats an empty JSON body as no body, and refuses prototype poisoning", async () => {
    const u = await h.user(["notifications:write"]);
    const patch = (payload: string) =>
      h.app.inject({
        method: "PATCH",
        url: NOTIFICATIONS,
        headers: { ...u.headers, "x-request-id": rid(), "content-type": "application/json" },
        payload,
      });
    expect((await patch("")).statusCode).toBe(204);
    const poisoned = await patch('{"__proto__":{"admin":true}}');
    expect(poisoned.statusCode).toBe(400);
    expect(poisoned.json().errorCode).toBe("BadRequest");
  });

  it("checks credentials before reading the body: 401 beats 415", async () => {
    const res = await h.app.inject({
      method: "PATCH",
      url: NOTIFICATIONS,
      headers: { "content-type": "text/plain", "x-request-id": rid() },
      payload: "hello",
    });
    expect(res.statusCode).toBe(401);
  });

  it("never logs the key pair, and logs carry the request id", async () => {
    const u = await h.user(["notifications:read"]);
    const id = rid();
    await h.app.inject({ method: "GET", url: NOTIFICATIONS, headers: { ...u.headers, "x-request-id": id } });
    const all = JSON.stringify(logs.lines);
    expect(all).not.toContain(u.headers["x-api-key"]);
    expect(all).not.toContain(u.headers["x-user-key"]);
    expect(logs.lines.some((l) => l.reqId === id)).toBe(true);
  });

  it("GET /health is alive and GET /ready reports the database", async () => {
    expect((await h.app.inject({ method: "GET", url: "/health" })).json()).toEqual({ status: "ok" });
    expect((await h.app.inject({ method: "GET", url: "/ready" })).json()).toEqual({ status: "ready" });
  });
});

describe("when the database is gone", () => {
  it("answers 500 GeneralError without internals, and /ready says 503", async () => {
    const logs = captureLogs();
    const h = await startHarness("sqlite", { log: logs.log });
    const u = await h.user(["notifications:read"]);
    await h.deps.db.close();
    try {
      const res = await h.app.inject({ method: "GET", url: "/api/v1/me", headers: u.headers });
      expect(res.statusCode).toBe(500);
      const body = res.json();
      expect(body).toEqual({
        errorCode: "GeneralError",
        errorMessage: "An unexpected error occurred",
        requestId: res.headers["x-request-id"],
      });
      expect(res.body).not.toMatch(/sqlite|select|\/src\/|\.ts:|at .*\(/i);
      // The operator still gets the cause, under the same request id.
      expect(logs.lines.some((l) => l.level === 50 && l.reqId === res.headers["x-request-id"])).toBe(true);

      const ready = await h.app.inject({ method: "GET", url: "/ready" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().errorCode).toBe("ServiceUnavailable");
    } finally {
      await h.close();
    }
  });
});

describe("CORS", () => {
  it("lets a browser app on another origin call the API with the key pair, and read the ids and limits", async () => {
    const h = await startHarness("sqlite");
    try {
      const preflight = await h.app.inject({
        method: "OPTIONS",
        url: "/api/v1/me",
        headers: {
          origin: "https://app.example.com",
          "access-control-request-method": "GET",
          "access-control-request-headers": "x-api-key,x-user-key,x-request-id",
        },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers["access-control-allow-origin"]).toBe("*");
      expect(String(preflight.headers["access-control-allow-headers"])).toContain("x-user-key");
      const u = await h.user([]);
      const res = await h.app.inject({
        method: "GET",
        url: "/api/v1/me",
        headers: { ...u.headers, origin: "https://app.example.com" },
      });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers["access-control-expose-headers"])).toContain("x-request-id");
    } finally {
      await h.close();
    }
  });

  it("answers an OPTIONS that is not a preflight with 400", async () => {
    const h = await startHarness("sqlite");
    try {
      for (const headers of [{}, { origin: "https://app.example.com" }, { "access-control-request-method": "GET" }]) {
        const res = await h.app.inject({ method: "OPTIONS", url: "/api/v1/me", headers });
        expect(res.statusCode, JSON.stringify(headers)).toBe(400);
        expect(res.body).toBe("Invalid Preflight Request");
      }
    } finally {
      await h.close();
    }
  });

  it("can be limited to listed origins", async () => {
    const h = await startHarness("sqlite", { env: { CORS_ORIGINS: "https://app.example.com" } });
    try {
      const other = await h.app.inject({
        method: "GET",
        url: "/health",
        headers: { origin: "https://evil.example.net" },
      });
      expect(other.headers["access-control-allow-origin"]).toBeUndefined();
      const listed = await h.app.inject({
        method: "GET",
        url: "/health",
        headers: { origin: "https://app.example.com" },
      });
      expect(listed.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    } finally {
      await h.close();
    }
  });
});
