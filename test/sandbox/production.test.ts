import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { systemClock } from "../../src/core/clock.js";
import { OPERATOR_SCOPE } from "../../src/core/scopes.js";
import { type Harness, startHarness, type TestUser } from "../support/harness.js";
import { SECURITY_CASES, urlOf } from "../support/security-cases.js";

const SECRETS_KEY = randomBytes(32).toString("base64");
const SANDBOX_CASES = SECURITY_CASES.sandbox;

describe("SANDBOX: on for development, off in production", () => {
  it("defaults to on, and to off when NODE_ENV=production; either may be set explicitly", () => {
    expect(loadConfig({}).sandbox.enabled).toBe(true);
    expect(loadConfig({ NODE_ENV: "production", SECRETS_KEY }).sandbox.enabled).toBe(false);
    expect(loadConfig({ NODE_ENV: "production", SECRETS_KEY, SANDBOX: "on" }).sandbox.enabled).toBe(true);
    expect(loadConfig({ SANDBOX: "OFF" }).sandbox.enabled).toBe(false);
    expect(() => loadConfig({ SANDBOX: "maybe" })).toThrow('SANDBOX must be on or off (got "maybe")');
  });

  it("RATE_LIMIT_PROFILE: upstream's exact quotas by default, generous ones for a sandbox; a pool setting still wins", () => {
    const upstream = loadConfig({}).rateLimits;
    expect(upstream.profile).toBe("upstream");
    expect(upstream.pools).toMatchObject({
      default: { max: 60, windowSeconds: 60 },
      writes: { max: 20, windowSeconds: 60 },
      notifications: { max: 1, windowSeconds: 1 },
    });
    const sandbox = loadConfig({ RATE_LIMIT_PROFILE: "sandbox", RATE_LIMIT_WRITES: "50/1m" }).rateLimits;
    expect(sandbox.profile).toBe("sandbox");
    expect(sandbox.pools.default.max).toBe(6000);
    expect(sandbox.pools.writes).toEqual({ max: 50, windowSeconds: 60 });
    expect(() => loadConfig({ RATE_LIMIT_PROFILE: "fast" })).toThrow(
      'RATE_LIMIT_PROFILE must be upstream or sandbox (got "fast")',
    );
  });
});

describe.each([
  ["NODE_ENV=production", { NODE_ENV: "production", SECRETS_KEY }],
  ["SANDBOX=off", { SANDBOX: "off" }],
])("with %s the sandbox does not exist", (_name, env) => {
  let h: Harness;
  let op: TestUser;
  beforeAll(async () => {
    h = await startHarness("sqlite", { env });
    // Even a key pair holding the operator's scope finds nothing.
    op = await h.user([OPERATOR_SCOPE]);
  });
  afterAll(async () => h.close());

  it("every sandbox route answers 404 in the one error body, to the operator and to anyone", async () => {
    expect(SANDBOX_CASES.length).toBeGreaterThan(20);
    for (const c of SANDBOX_CASES) {
      const [method] = c.route.split(" ");
      const payload = "payload" in c ? (c.payload as object | undefined) : undefined;
      for (const headers of [op.headers, {}]) {
        const res = await h.app.inject({
          method: method as "GET",
          url: urlOf(c),
          headers: { ...headers, "x-request-id": randomUUID() },
          ...(payload ? { payload } : {}),
        });
        expect(res.statusCode, c.route).toBe(404);
        expect(res.json()).toMatchObject({ errorCode: "NotFound" });
      }
    }
  });

  it("the OpenAPI document has no sandbox path, the clock is the system's, no fault hook, no snapshot", async () => {
    const doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/sandbox"))).toEqual([]);
    expect(h.deps.sandbox).toBeNull();
    expect(h.deps.clock).toBe(systemClock);
  });
});
