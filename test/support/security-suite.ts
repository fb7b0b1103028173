import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { KNOWN_SCOPES, namedScopes, OPERATOR_SCOPE, type Scope } from "../../src/core/scopes.js";
import { withActor } from "../../src/modules/context.js";
import { revokeKeyPair } from "../../src/modules/identity/key-pairs.js";
import { engines, type Harness, type Headers, startHarness } from "./harness.js";
import {
  isPublic,
  methodOf,
  type PublicCase,
  SECURITY_CASES,
  type SecuredCase,
  type SecurityFile,
  urlOf,
} from "./security-cases.js";

const fresh = (headers: Headers): Headers => ({ ...headers, "x-request-id": randomUUID() });

type Reply = Awaited<ReturnType<Harness["app"]["inject"]>>;

/**
 * The checks every guarded route must pass: 401 without or with conflicting or dead credentials
 * (an answer instead when anonymous callers are allowed), 403 naming the accepted scopes without
 * one of them, 429 over quota, and admission with each accepted scope alone. The cases come from
 * test/support/security-cases.ts, which holds one entry per route.
 */
export function securitySuite(harness: () => Harness, op: SecuredCase): void {
  const method = methodOf(op);
  const url = urlOf(op);
  const named = namedScopes(op.scopes);
  // Scopes a credential is made with: each accepted one alone, or any one at all.
  const admitting: readonly Scope[] = named.length > 0 ? named : ["club:read"];
  const refused = named.includes("user-info:read")
    ? KNOWN_SCOPES.find((s) => !named.includes(s))!
    : ("user-info:read" as const);
  const title = `${method} ${url}`;

  const call = (headers: Headers, m: string = method) =>
    harness().app.inject({
      method: m as "GET",
      url,
      headers: { "x-request-id": randomUUID(), ...op.headers, ...headers },
      ...(op.payload !== undefined && m !== "HEAD" ? { payload: op.payload as string | object } : {}),
    });

  const expectError = (res: Reply, status: number, code: string) => {
    expect(res.statusCode).toBe(status);
    if (op.answers === "page") {
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      return;
    }
    const body = res.json();
    expect(body.errorCode).toBe(code);
    expect(body.requestId).toBe(res.headers["x-request-id"]);
    expect(typeof body.errorMessage).toBe("string");
  };

  const expectAdmitted = (res: Reply) => {
    expect([401, 403], res.body).not.toContain(res.statusCode);
    expect(res.statusCode, res.body).toBeLessThan(500);
  };

  if (op.auth === "optional") {
    it(`${title}: an anonymous caller gets an answer (the public view)`, async () => {
      expectAdmitted(await call({}));
    });
  } else {
    it(`${title}: 401 without credentials`, async () => {
      expectError(await call({}), 401, "Unauthorized");
    });
  }

  if (method === "GET") {
    it(`${title}: HEAD is guarded as GET is`, async () => {
      const res = await call({}, "HEAD");
      if (op.auth === "optional") expectAdmitted(res);
      else expect(res.statusCode).toBe(401);
    });
  }

  it(`${title}: 401 with only one of the two keys`, async () => {
    const { headers } = await harness().user([...admitting]);
    expectError(await call({ "x-api-key": headers["x-api-key"]! }), 401, "Unauthorized");
    expectError(await call({ "x-user-key": headers["x-user-key"]! }), 401, "Unauthorized");
  });

  it(`${title}: 401 with an unknown or mismatched pair`, async () => {
    const a = await harness().user([...admitting]);
    const b = await harness().user([...admitting]);
    expectError(await call({ "x-api-key": "sta_ak_nope", "x-user-key": "sta_uk_nope" }), 401, "Unauthorized");
    expectError(
      await call({ "x-api-key": a.headers["x-api-key"]!, "x-user-key": b.headers["x-user-key"]! }),
      401,
      "Unauthorized",
    );
  });

  it(`${title}: 401 with a revoked pair`, async () => {
    const h = harness();
    const u = await h.user([...admitting]);
    await revokeKeyPair(withActor(h.deps, systemActor("test")), u.keyId);
    expectError(await call(fresh(u.headers)), 401, "Unauthorized");
  });

  it(`${title}: 401 when a bearer token comes with the pair`, async () => {
    const u = await harness().user([...admitting]);
    expectError(await call({ ...fresh(u.headers), authorization: "Bearer anything" }), 401, "Unauthorized");
  });

  it(`${title}: 401 with an invalid bearer token, with a challenge`, async () => {
    const res = await call({ authorization: "Bearer not-a-token" });
    expectError(res, 401, "Unauthorized");
    expect(res.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  if (named.length > 0) {
    /** The 403 names every accepted scope, prefixed as a client asks for it. */
    const expectRefusal = (res: Reply) => {
      expectError(res, 403, "InsufficientPermissions");
      const prefix = harness().config.scopePrefix;
      expect(res.json().details).toEqual(named.map((s) => ({ field: "scopes", message: `${prefix}:${s}` })));
    };

    it(`${title}: 403 InsufficientPermissions without an accepted scope, naming the accepted ones`, async () => {
      const u = await harness().user([refused]);
      const res = await call(fresh(u.headers));
      expectRefusal(res);
      // A known caller's 403 is counted like any other answer and says so.
      if (harness().config.rateLimits.enabled) expect(res.headers["ratelimit-limit"]).toBeDefined();
    });

    it(`${title}: 403 InsufficientPermissions for a bearer token without an accepted scope`, async () => {
      const { headers } = await harness().bearer([refused]);
      expectRefusal(await call(fresh(headers)));
    });
  }

  it(`${title}: 429 over quota, with Retry-After and the RateLimit headers`, async () => {
    const h = harness();
    // Same store, every pool at 1 request per 60 s: the second call is over quota.
    const app = await h.tinyLimitApp();
    const u = await h.user([...admitting]);
    const send = () =>
      app.inject({
        method: method as "GET",
        url,
        headers: { ...op.headers, ...fresh(u.headers) },
        ...(op.payload !== undefined ? { payload: op.payload as string | object } : {}),
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

  for (const scope of admitting) {
    it(`${title}: admitted with ${scope} alone, bare or prefixed`, async () => {
      const h = harness();
      for (const form of [scope, `${h.config.scopePrefix}:${scope}`]) {
        const u = await h.user([form]);
        expectAdmitted(await call(fresh(u.headers)));
      }
    });

    if (scope === OPERATOR_SCOPE) {
      // Only a key pair holds the operator's scope (decision 0149): no token can be made with it.
      it(`${title}: no bearer token can hold ${scope}`, async () => {
        await expect(harness().bearer([scope])).rejects.toMatchObject({ code: "ValidationFailed" });
      });
      continue;
    }
    it(`${title}: admitted with a bearer token holding ${scope} alone`, async () => {
      const { headers } = await harness().bearer([scope]);
      expectAdmitted(await call(fresh(headers)));
    });
  }

  it(`${title}: 401 with an expired or tampered bearer token, with a challenge`, async () => {
    const h = harness();
    // Tokens hold grantable scopes only (decision 0149): for an operator's route, any one.
    const grantable = admitting.filter((s) => s !== OPERATOR_SCOPE);
    const tokenScopes = grantable.length > 0 ? grantable : ["user-info:read"];
    const expired = await h.bearer([...tokenScopes], { expired: true });
    const valid = await h.bearer([...tokenScopes]);
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

/**
 * A route without an access rule: API credentials are not looked at (a broken pair that any
 * guarded route refuses with 401 changes nothing), and the answer is never the API's 401 or 403.
 */
export function publicSuite(harness: () => Harness, c: PublicCase): void {
  const method = methodOf(c);
  const url = urlOf(c);
  it(`${method} ${url}: public (${c.public}); API credentials are not looked at`, async () => {
    const send = (headers: Headers) => harness().app.inject({ method: method as "GET", url, headers });
    const plain = await send({});
    const broken = await send({ "x-api-key": "sta_ak_nope" });
    expect(broken.statusCode).toBe(plain.statusCode);
    for (const res of [plain, broken]) {
      expect(res.statusCode).toBeLessThan(500);
      if (res.headers["content-type"]?.toString().startsWith("application/json")) {
        expect(["Unauthorized", "InsufficientPermissions"]).not.toContain(res.json().errorCode);
      }
    }
  });
}

/** Runs one file's share of the cases (test/security/<file>.test.ts) on every engine. */
export function runSecurityCases(file: SecurityFile): void {
  describe.each(engines())(`the shared security suite, ${file}, on %s`, (engine) => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(engine);
    });
    afterAll(async () => h.close());

    for (const c of SECURITY_CASES[file]) {
      if (isPublic(c)) publicSuite(() => h, c);
      else securitySuite(() => h, c);
    }
  });
}
