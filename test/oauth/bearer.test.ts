import { randomUUID, type webcrypto } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { rotateSigningKey } from "../../src/modules/oauth/signing-keys.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

type CryptoKey = webcrypto.CryptoKey;
const ME = "/api/v1/me";
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe.each(engines())("bearer verification on %s", (engine) => {
  let h: Harness;
  let issuer: string;
  beforeAll(async () => {
    h = await startHarness(engine);
    issuer = (await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" })).json().issuer;
  });
  afterAll(async () => h.close());

  const call = (token: string, url = ME) =>
    h.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${token}`, "x-request-id": randomUUID() } });

  /** 401 with a challenge and a message that both name the cause. */
  const expectInvalid = async (token: string, cause: string | RegExp) => {
    const res = await call(token);
    expect(res.statusCode).toBe(401);
    const description = /^Bearer error="invalid_token", error_description="([^"]*)"$/.exec(
      String(res.headers["www-authenticate"]),
    )?.[1];
    if (typeof cause === "string") expect(description).toBe(cause);
    else expect(description).toMatch(cause);
    expect(res.json()).toMatchObject({
      errorCode: "Unauthorized",
      errorMessage: `The bearer token was refused: ${description}`,
    });
  };

  /** Signs with the server's own current key, so only the claim under test is wrong. */
  async function ownKeySigned(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
    const key = await h.deps.signingKeys.current();
    const now = Math.floor(Date.now() / 1000);
    const { user, token } = await h.bearer(["user-info:read"]);
    const valid = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
    return {
      user,
      token: await new SignJWT({ ...valid, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt", ...header })
        .sign(key.privateKey),
    };
  }

  it("a minted token works, and the same token re-signed by our key is accepted (the control case)", async () => {
    const { token, user } = await h.bearer(["user-info:read"]);
    const res = await call(token);
    expect(res.statusCode).toBe(200);
    expect(res.json().username).toBe(user.username);
    const control = await ownKeySigned({});
    expect((await call(control.token)).statusCode).toBe(200);
  });

  it("rejects a tampered token (payload changed, signature kept)", async () => {
    const { token } = await h.bearer(["user-info:read"]);
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    await expectInvalid(
      [header, b64({ ...claims, scope: "service-public:real:write" }), signature].join("."),
      "bad signature",
    );
    await expectInvalid(`${token.slice(0, -4)}AAAA`, "bad signature");
    await expectInvalid("not-a-token", "malformed token (not a JWT)");
  });

  it("an Authorization header that is not `Bearer <token>` is 401 and says so", async () => {
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer", "Bearer a b"]) {
      const res = await h.app.inject({ method: "GET", url: ME, headers: { authorization } });
      expect(res.statusCode).toBe(401);
      expect(res.headers["www-authenticate"]).toBe('Bearer error="invalid_token"');
      expect(res.json().errorMessage).toBe("The Authorization header must be `Bearer <token>`");
    }
  });

  it("rejects an expired token, but tolerates 30 s of clock skew", async () => {
    await expectInvalid((await h.bearer(["user-info:read"], { expired: true })).token, /^expired at \d{4}-/);
    const now = Math.floor(Date.now() / 1000);
    expect((await call((await ownKeySigned({ exp: now - 10 })).token)).statusCode).toBe(200);
    await expectInvalid(
      (await ownKeySigned({ exp: now - 120 })).token,
      `expired at ${new Date((now - 120) * 1000).toISOString()}`,
    );
    await expectInvalid((await ownKeySigned({ nbf: now + 600 })).token, "not valid yet (nbf is in the future)");
  });

  it("rejects a token issued in the future beyond the skew, and tolerates the skew", async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await call((await ownKeySigned({ iat: now + 20 })).token)).statusCode).toBe(200);
    const dayAhead = now + 86_400;
    await expectInvalid(
      (await ownKeySigned({ iat: dayAhead, exp: dayAhead + 300 })).token,
      `issued in the future (iat ${new Date(dayAhead * 1000).toISOString()})`,
    );
  });

  it("rejects a wrong audience, a wrong issuer, and a wrong typ", async () => {
    await expectInvalid(
      (await ownKeySigned({ aud: "another-api" })).token,
      "audience mismatch (token aud another-api, expected social-trading-api)",
    );
    await expectInvalid(
      (await ownKeySigned({ iss: "https://evil.example" })).token,
      `issuer mismatch (token iss https://evil.example, expected ${issuer})`,
    );
    await expectInvalid(
      (await ownKeySigned({ iss: issuer }, { typ: "JWT" })).token,
      "not an access token (typ must be at+jwt)",
    );
    // a claim of the client's making is shown, but never breaks the header's quoting
    await expectInvalid(
      (await ownKeySigned({ iss: 'x" , error="y\\' })).token,
      `issuer mismatch (token iss x? , error=?y?, expected ${issuer})`,
    );
  });

  it('rejects alg "none" and HS256 signed with the public key', async () => {
    const { token } = await h.bearer(["user-info:read"]);
    const payload = token.split(".")[1]!;
    await expectInvalid(`${b64({ alg: "none", typ: "at+jwt" })}.${payload}.`, "unsupported algorithm none");
    const jwk = (await h.deps.signingKeys.current()).publicJwk;
    const hmac = await new SignJWT(JSON.parse(Buffer.from(payload, "base64url").toString()))
      .setProtectedHeader({ alg: "HS256", kid: jwk.kid!, typ: "at+jwt" })
      .sign(new TextEncoder().encode(JSON.stringify(jwk)));
    await expectInvalid(hmac, "unsupported algorithm HS256");
  });

  it("rejects a token signed by a second key set that claims our kid and issuer", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const { token } = await h.bearer(["user-info:read"]);
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
    const kid = (await h.deps.signingKeys.current()).kid;
    await expectInvalid(
      await new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" }).sign(privateKey),
      "bad signature",
    );
    await expectInvalid(
      await new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "nokid", typ: "at+jwt" }).sign(privateKey),
      "unknown signing key (kid nokid)",
    );
  });

  it("a bearer token and a key pair together are 401; a missing scope is 403", async () => {
    const pair = await h.user(["user-info:read"]);
    const { token } = await h.bearer(["user-info:read"]);
    const both = await h.app.inject({
      method: "GET",
      url: ME,
      headers: { ...pair.headers, authorization: `Bearer ${token}` },
    });
    expect(both.statusCode).toBe(401);
    const noScope = await call((await h.bearer(["feed:read"])).token, "/api/v1/notifications/messages");
    expect(noScope.statusCode).toBe(403);
    expect(noScope.json().errorCode).toBe("InsufficientPermissions");
  });

  it("signing keys persist across a restart, and rotation keeps earlier tokens valid", async () => {
    const { token } = await h.bearer(["user-info:read"]);
    const kidBefore = (await h.deps.signingKeys.current()).kid;
    // a second process on the same store: new deps, new app, no shared memory
    const deps2 = await createDeps(h.config);
    const app2 = await buildApp(h.config, deps2);
    try {
      const res = await app2.inject({ method: "GET", url: ME, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(200);
      expect((await deps2.signingKeys.current()).kid).toBe(kidBefore);

      const rotated = await rotateSigningKey(withActor(deps2, systemActor("test")));
      expect(rotated.kid).not.toBe(kidBefore);
      const jwks = (await app2.inject({ method: "GET", url: "/oauth/jwks" })).json();
      expect(jwks.keys.map((k: JWK) => k.kid)).toEqual(expect.arrayContaining([kidBefore, rotated.kid]));
      // the old token still verifies during the grace period; new tokens use the new key
      expect(
        (await app2.inject({ method: "GET", url: ME, headers: { authorization: `Bearer ${token}` } })).statusCode,
      ).toBe(200);
      h.deps.signingKeys.invalidate();
      const fresh = (await h.bearer(["user-info:read"])).token;
      expect(JSON.parse(Buffer.from(fresh.split(".")[0]!, "base64url").toString()).kid).toBe(rotated.kid);

      // a suspected leak: drop the previous keys, their tokens die at once
      await rotateSigningKey(withActor(deps2, systemActor("test")), { dropPrevious: true });
      const dropped = await app2.inject({ method: "GET", url: ME, headers: { authorization: `Bearer ${token}` } });
      expect(dropped.statusCode).toBe(401);
      expect(dropped.json().errorMessage).toBe(`The bearer token was refused: unknown signing key (kid ${kidBefore})`);
    } finally {
      await app2.close();
      await closeDeps(deps2);
      h.deps.signingKeys.invalidate();
    }
  });
});

describe.each(engines())("an external issuer trusted by its JWKS URL on %s", (engine) => {
  let h: Harness;
  let jwksServer: Server;
  let external: { privateKey: CryptoKey; jwk: JWK };
  let other: { privateKey: CryptoKey };
  const EXTERNAL_ISSUER = "https://idp.example";

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256", { extractable: true });
    external = {
      privateKey: pair.privateKey,
      jwk: { ...(await exportJWK(pair.publicKey)), kid: "idp-1", alg: "RS256" },
    };
    other = { privateKey: (await generateKeyPair("RS256")).privateKey };
    jwksServer = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ keys: [external.jwk] }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
    const port = (jwksServer.address() as AddressInfo).port;
    h = await startHarness(engine, {
      env: { OAUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`, OAUTH_EXTERNAL_ISSUER: EXTERNAL_ISSUER },
    });
  });
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => jwksServer.close(resolve));
  });

  const sign = (key: CryptoKey, claims: Record<string, unknown>, kid = "idp-1") => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      iss: EXTERNAL_ISSUER,
      aud: "social-trading-api",
      iat: now,
      exp: now + 300,
      scope: "service-public:user-info:read",
      ...claims,
    })
      .setProtectedHeader({ alg: "RS256", kid })
      .sign(key);
  };

  const call = (token: string) =>
    h.app.inject({
      method: "GET",
      url: ME,
      headers: { authorization: `Bearer ${token}`, "x-request-id": randomUUID() },
    });

  it("accepts its tokens for a local user (sub = id, gcid or username) with their scopes", async () => {
    const user = await createUser(withActor(h.deps, systemActor("test")), { username: `ext_${Date.now()}` });
    for (const sub of [user.id, String(user.gcid), user.username]) {
      const res = await call(await sign(external.privateKey, { sub }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ username: user.username, scopes: ["service-public:user-info:read"] });
    }
  });

  it("rejects a second key set, an unknown user, a wrong audience, and our issuer name on its key", async () => {
    const user = await createUser(withActor(h.deps, systemActor("test")), { username: `ext2_${Date.now()}` });
    for (const [token, cause] of [
      [await sign(other.privateKey, { sub: user.id }), "bad signature"],
      [await sign(other.privateKey, { sub: user.id }, "other-kid"), "no key of the issuer matches"],
      [await sign(external.privateKey, { sub: "nobody-here" }), "its subject nobody-here is not a user here"],
      [
        await sign(external.privateKey, { sub: user.id, aud: "someone-else" }),
        "audience mismatch (token aud someone-else, expected social-trading-api)",
      ],
    ] as const) {
      const res = await call(token);
      expect(res.statusCode).toBe(401);
      expect(res.headers["www-authenticate"]).toBe(`Bearer error="invalid_token", error_description="${cause}"`);
    }
    const asUs = await new SignJWT({ sub: user.id, scope: "user-info:read", sid: "x", gcid: user.gcid })
      .setProtectedHeader({ alg: "RS256", kid: "idp-1", typ: "at+jwt" })
      .setIssuer((await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" })).json().issuer)
      .setAudience("social-trading-api")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(external.privateKey);
    const stranger = await call(await sign(external.privateKey, { sub: user.id, iss: "https://other.example" }));
    expect(stranger.json().errorMessage).toBe(
      `The bearer token was refused: issuer mismatch (token iss https://other.example, expected ${
        (await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" })).json().issuer
      } or ${EXTERNAL_ISSUER})`,
    );
    const refused = await call(asUs);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().errorMessage).toBe("The bearer token was refused: unsupported algorithm RS256");
    // the built-in issuer keeps working beside it
    expect((await call((await h.bearer(["user-info:read"])).token)).statusCode).toBe(200);
  });
});
