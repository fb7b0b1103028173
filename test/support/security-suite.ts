import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { revokeKeyPair } from "../../src/modules/identity/key-pairs.js";
import type { Harness, Headers } from "./harness.js";

export interface SecuredOperation {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  /** Bare scopes the operation accepts (any-of); empty = any authenticated caller. */
  scopes: string[];
  payload?: unknown;
}

const fresh = (headers: Headers): Headers => ({ ...headers, "x-request-id": randomUUID() });

/**
 * The checks every authenticated route must pass: 401 without or with conflicting or dead
 * credentials, 403 without the scope, and admission with each accepted scope alone.
 */
export function securitySuite(harness: () => Harness, op: SecuredOperation): void {
  const call = (headers: Headers) =>
    harness().app.inject({
      method: op.method,
      url: op.url,
      headers: { "x-request-id": randomUUID(), ...headers },
      ...(op.payload !== undefined ? { payload: op.payload as object } : {}),
    });

  const expectError = (res: Awaited<ReturnType<typeof call>>, status: number, code: string) => {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(body.errorCode).toBe(code);
    expect(body.requestId).toBe(res.headers["x-request-id"]);
    expect(typeof body.errorMessage).toBe("string");
  };

  it(`${op.method} ${op.url}: 401 without credentials`, async () => {
    expectError(await call({}), 401, "Unauthorized");
  });

  it(`${op.method} ${op.url}: 401 with only one of the two keys`, async () => {
    const { headers } = await harness().user(op.scopes);
    expectError(await call({ "x-api-key": headers["x-api-key"]! }), 401, "Unauthorized");
    expectError(await call({ "x-user-key": headers["x-user-key"]! }), 401, "Unauthorized");
  });

  it(`${op.method} ${op.url}: 401 with an unknown or mismatched pair`, async () => {
    const a = await harness().user(op.scopes);
    const b = await harness().user(op.scopes);
    expectError(await call({ "x-api-key": "sta_ak_nope", "x-user-key": "sta_uk_nope" }), 401, "Unauthorized");
    expectError(
      await call({ "x-api-key": a.headers["x-api-key"]!, "x-user-key": b.headers["x-user-key"]! }),
      401,
      "Unauthorized",
    );
  });

  it(`${op.method} ${op.url}: 401 with a revoked pair`, async () => {
    const h = harness();
    const u = await h.user(op.scopes);
    await revokeKeyPair(withActor(h.deps, systemActor("test")), u.keyId);
    expectError(await call(fresh(u.headers)), 401, "Unauthorized");
  });

  it(`${op.method} ${op.url}: 401 when a bearer token comes with the pair`, async () => {
    const u = await harness().user(op.scopes);
    expectError(await call({ ...fresh(u.headers), authorization: "Bearer anything" }), 401, "Unauthorized");
  });

  it(`${op.method} ${op.url}: 401 with an invalid bearer token, with a challenge`, async () => {
    const res = await call({ authorization: "Bearer not-a-token" });
    expectError(res, 401, "Unauthorized");
    expect(res.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  if (op.scopes.length > 0) {
    it(`${op.method} ${op.url}: 403 InsufficientPermissions without an accepted scope`, async () => {
      const u = await harness().user(["user-info:read"]);
      const res = await call(fresh(u.headers));
      expectError(res, 403, "InsufficientPermissions");
      // A known caller's 403 is counted like any other answer and says so.
      if (harness().config.rateLimits.enabled) expect(res.headers["ratelimit-limit"]).toBeDefined();
    });
  }

  it(`${op.method} ${op.url}: 429 over quota, with Retry-After and the RateLimit headers`, async () => {
    const h = harness();
    // Same store, every pool at 1 request per 60 s: the second call is over quota.
    const app = await h.tinyLimitApp();
    const u = await h.user(op.scopes);
    const send = () =>
      app.inject({
        method: op.method,
        url: op.url,
        headers: fresh(u.headers),
        ...(op.payload !== undefined ? { payload: op.payload as object } : {}),
      });
    const first = await send();
    expect(first.statusCode).not.toBe(429);
    expect(first.headers["ratelimit-remaining"]).toBe("0");
    const res = await send();
    expectError(res, 429, "TooManyRequests");
    expect(res.headers["ratelimit-limit"]).toBe("1");
    expect(res.headers["ratelimit-remaining"]).toBe("0");
    expect(res.headers["ratelimit-policy"]).toBe("1;w=60");
    const reset = Number(res.headers["ratelimit-reset"]);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    expect(res.headers["retry-after"]).toBe(String(reset));
  });

  for (const scope of op.scopes.length ? op.scopes : ["user-info:read"]) {
    it(`${op.method} ${op.url}: admitted with ${scope} alone, bare or prefixed`, async () => {
      const h = harness();
      for (const form of [scope, `${h.config.scopePrefix}:${scope}`]) {
        const u = await h.user([form]);
        const res = await call(fresh(u.headers));
        expect([401, 403]).not.toContain(res.statusCode);
        expect(res.statusCode).toBeLessThan(500);
      }
    });

    it(`${op.method} ${op.url}: admitted with a bearer token holding ${scope} alone`, async () => {
      const { headers } = await harness().bearer([scope]);
      const res = await call(fresh(headers));
      expect([401, 403]).not.toContain(res.statusCode);
      expect(res.statusCode).toBeLessThan(500);
    });
  }

  if (op.scopes.length > 0) {
    it(`${op.method} ${op.url}: 403 InsufficientPermissions for a bearer token without an accepted scope`, async () => {
      const { headers } = await harness().bearer(["user-info:read"]);
      expectError(await call(fresh(headers)), 403, "InsufficientPermissions");
    });
  }

  it(`${op.method} ${op.url}: 401 with an expired or tampered bearer token, with a challenge`, async () => {
    const h = harness();
    const scopes = op.scopes.length ? op.scopes : ["user-info:read"];
    const expired = await h.bearer(scopes, { expired: true });
    const valid = await h.bearer(scopes);
    const [header, payload, signature] = valid.token.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: "someone-else" })).toString("base64url");
    for (const token of [expired.token, `${header}.${forged}.${signature}`]) {
      const res = await call({ authorization: `Bearer ${token}` });
      expectError(res, 401, "Unauthorized");
      expect(res.headers["www-authenticate"]).toContain('error="invalid_token"');
    }
  });
}
