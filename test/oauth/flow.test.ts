import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { listAudit } from "../../src/modules/audit/list-audit.js";
import { withActor } from "../../src/modules/context.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import {
  authorizeViaForms,
  basic,
  client,
  FORM,
  form,
  hiddenValue,
  PASSWORD,
  passwordUser,
  pkce,
  REDIRECT,
} from "./support.js";

describe.each(engines())("OAuth authorization code flow on %s", (engine) => {
  let h: Harness;
  let issuer: string;
  beforeAll(async () => {
    h = await startHarness(engine);
    issuer = (await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" })).json().issuer;
  });
  afterAll(async () => h.close());

  const token = (values: Record<string, string | undefined>, authorization?: string) =>
    h.app.inject({
      method: "POST",
      url: "/oauth/token",
      headers: { ...FORM, ...(authorization ? { authorization } : {}) },
      payload: form(values),
    });

  const me = (accessToken: string) =>
    h.app.inject({
      method: "GET",
      url: "/api/v1/me",
      headers: { authorization: `Bearer ${accessToken}`, "x-request-id": randomUUID() },
    });

  /** A public client's full flow up to the code. */
  async function codeFor(options: { scope?: string; isPublic?: boolean } = {}) {
    const c = await client(h, { isPublic: options.isPublic ?? true });
    const user = await passwordUser(h);
    const { verifier, challenge } = pkce();
    const state = `st-${randomUUID()}`;
    const { url } = await authorizeViaForms(
      h,
      {
        response_type: "code",
        client_id: c.clientId,
        redirect_uri: REDIRECT,
        scope: options.scope ?? "service-public:user-info:read notifications:read",
        state,
        code_challenge: challenge,
        code_challenge_method: "S256",
      },
      { username: user.username, password: PASSWORD },
    );
    return { c, user, verifier, state, url, code: url.searchParams.get("code")! };
  }

  it("publishes RFC 8414 metadata naming its endpoints, S256 only, and a JWKS with the signing key", async () => {
    const res = await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" });
    expect(res.statusCode).toBe(200);
    const meta = res.json();
    expect(meta).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      jwks_uri: `${issuer}/oauth/jwks`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(meta.scopes_supported).toContain("service-public:notifications:read");
    const jwks = (await h.app.inject({ method: "GET", url: "/oauth/jwks" })).json();
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    expect(jwks.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(jwks.keys[0].d).toBeUndefined();
  });

  it("/docs declares these endpoints in its oauth2 scheme and runs the flow with PKCE", async () => {
    const doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(flow).toMatchObject({
      authorizationUrl: "/oauth/authorize",
      tokenUrl: "/oauth/token",
      refreshUrl: "/oauth/token",
    });
    const meta = (await h.app.inject({ method: "GET", url: "/.well-known/oauth-authorization-server" })).json();
    expect(Object.keys(flow.scopes).sort()).toEqual([...meta.scopes_supported].sort());
    const init = await h.app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    expect(init.body).toContain('"usePkceWithAuthorizationCodeGrant":true');
    expect(init.body).toContain("static/oauth2-redirect.html");
  });

  it("completes code + PKCE for a public client, and the token calls the API with its scopes", async () => {
    const { c, user, verifier, state, url, code } = await codeFor();
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(url.searchParams.get("state")).toBe(state);
    expect(url.searchParams.get("iss")).toBe(issuer);
    const res = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: c.clientId,
      code_verifier: verifier,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = res.json();
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 900 });
    expect(body.scope).toBe("service-public:user-info:read service-public:notifications:read");
    expect(body.refresh_token).toMatch(/^sta_rt_/);
    const [header, payload] = body.access_token
      .split(".")
      .slice(0, 2)
      .map((p: string) => JSON.parse(Buffer.from(p, "base64url").toString()));
    expect(header).toMatchObject({ alg: "ES256", typ: "at+jwt" });
    expect(payload).toMatchObject({ iss: issuer, aud: "social-trading-api", sub: user.id, client_id: c.clientId });
    expect(payload.exp - payload.iat).toBe(900);

    const who = await me(body.access_token);
    expect(who.statusCode).toBe(200);
    expect(who.json()).toMatchObject({ username: user.username, gcid: user.gcid });
    expect(who.json().scopes).toEqual(["service-public:user-info:read", "service-public:notifications:read"]);
  });

  it("a missing scope is 403 InsufficientPermissions for a bearer token", async () => {
    const { c, verifier, code } = await codeFor({ scope: "user-info:read" });
    const { access_token } = (
      await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: c.clientId,
        code_verifier: verifier,
      })
    ).json();
    const res = await h.app.inject({
      method: "GET",
      url: "/api/v1/notifications/messages",
      headers: { authorization: `Bearer ${access_token}`, "x-request-id": randomUUID() },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().errorCode).toBe("InsufficientPermissions");
  });

  it("rotates refresh tokens, and reusing a spent one is invalid_grant and revokes the whole family", async () => {
    const { c, verifier, code } = await codeFor();
    const first = (
      await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: c.clientId,
        code_verifier: verifier,
      })
    ).json();
    const second = await token({
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: c.clientId,
    });
    expect(second.statusCode).toBe(200);
    const rotated = second.json();
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect((await me(rotated.access_token)).statusCode).toBe(200);

    // narrowing on refresh: only the asked scope in the access token; the family keeps the rest
    const narrowed = await token({
      grant_type: "refresh_token",
      refresh_token: rotated.refresh_token,
      client_id: c.clientId,
      scope: "user-info:read",
    });
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.json().scope).toBe("service-public:user-info:read");
    const latest = narrowed.json();

    const reuse = await token({
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: c.clientId,
    });
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json()).toEqual({
      error: "invalid_grant",
      error_description: expect.stringContaining("already used"),
    });
    // the family is gone: the newest refresh token and the access tokens stop working too
    const afterReuse = await token({
      grant_type: "refresh_token",
      refresh_token: latest.refresh_token,
      client_id: c.clientId,
    });
    expect(afterReuse.statusCode).toBe(400);
    expect(afterReuse.json().error).toBe("invalid_grant");
    const denied = await me(latest.access_token);
    expect(denied.statusCode).toBe(401);
    expect(denied.headers["www-authenticate"]).toBe('Bearer error="invalid_token", error_description="revoked"');
    // the audit trail says what happened, and why the grant was revoked
    const audit = withActor(h.deps, systemActor("test"));
    const [reused] = await listAudit(audit, { action: "refresh-token.reused", limit: 10 });
    expect(reused).toMatchObject({ outcome: "refused", details: { clientId: c.clientId } });
    const [revoked] = await listAudit(audit, { action: "oauth-grant.revoked", limit: 10 });
    expect(revoked).toMatchObject({ details: { grantId: reused!.details.grantId, reason: "refresh token reuse" } });
  });

  it("refresh may not widen the scope", async () => {
    const { c, verifier, code } = await codeFor({ scope: "user-info:read" });
    const first = (
      await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: c.clientId,
        code_verifier: verifier,
      })
    ).json();
    const res = await token({
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: c.clientId,
      scope: "user-info:read feed:write",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe("invalid_scope");
  });

  it("a code is single-use: replay is invalid_grant and revokes the tokens it gave", async () => {
    const { c, verifier, code } = await codeFor();
    const values = {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: c.clientId,
      code_verifier: verifier,
    };
    const first = (await token(values)).json();
    const again = await token(values);
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe("invalid_grant");
    expect((await me(first.access_token)).statusCode).toBe(401);
  });

  it("PKCE: a wrong or missing code_verifier is invalid_grant", async () => {
    const { c, code } = await codeFor();
    const wrong = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: c.clientId,
      code_verifier: pkce().verifier,
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toBe("invalid_grant");
    const missing = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: c.clientId,
    });
    expect(missing.json().error).toBe("invalid_grant");
  });

  it("the redirect_uri of the token request must match the authorization request", async () => {
    const { c, code, verifier } = await codeFor();
    const res = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example/other",
      client_id: c.clientId,
      code_verifier: verifier,
    });
    expect(res.json().error).toBe("invalid_grant");
  });

  it("a confidential client authenticates with Basic or in the body; a wrong secret is 401 invalid_client", async () => {
    const c = await client(h, { isPublic: false });
    const user = await passwordUser(h);
    const params = (challenge?: string) => ({
      response_type: "code",
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      scope: "user-info:read",
      state: "s1",
      ...(challenge ? { code_challenge: challenge, code_challenge_method: "S256" } : {}),
    });
    // PKCE is optional for a confidential client
    const a = await authorizeViaForms(h, params(), { username: user.username, password: PASSWORD });
    const viaBasic = await token(
      { grant_type: "authorization_code", code: a.url.searchParams.get("code")!, redirect_uri: REDIRECT },
      basic(c.clientId, c.clientSecret!),
    );
    expect(viaBasic.statusCode).toBe(200);

    const p = pkce();
    const b = await authorizeViaForms(h, params(p.challenge), { username: user.username, password: PASSWORD });
    const badSecret = await token(
      {
        grant_type: "authorization_code",
        code: b.url.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        code_verifier: p.verifier,
      },
      basic(c.clientId, "sta_cs_wrong"),
    );
    expect(badSecret.statusCode).toBe(401);
    expect(badSecret.json().error).toBe("invalid_client");
    expect(badSecret.headers["www-authenticate"]).toContain("Basic");
    const noSecret = await token({
      grant_type: "authorization_code",
      code: b.url.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      client_id: c.clientId,
      code_verifier: p.verifier,
    });
    expect(noSecret.statusCode).toBe(401);
    const inBody = await token({
      grant_type: "authorization_code",
      code: b.url.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      client_id: c.clientId,
      client_secret: c.clientSecret!,
      code_verifier: p.verifier,
    });
    expect(inBody.statusCode).toBe(200);
    const both = await token(
      { grant_type: "refresh_token", refresh_token: inBody.json().refresh_token, client_secret: c.clientSecret! },
      basic(c.clientId, c.clientSecret!),
    );
    expect(both.json().error).toBe("invalid_request");
  });

  it("a public client may send Basic with an empty secret (as Swagger UI does)", async () => {
    const { c, verifier, code } = await codeFor();
    const res = await token(
      { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier },
      basic(c.clientId, ""),
    );
    expect(res.statusCode).toBe(200);
  });

  it("token endpoint errors are OAuth style: unsupported grant, missing parameter, JSON body, unknown client", async () => {
    const c = await client(h, { isPublic: true });
    const grant = await token({ grant_type: "password", client_id: c.clientId });
    expect(grant.statusCode).toBe(400);
    expect(grant.json()).toEqual({ error: "unsupported_grant_type", error_description: expect.any(String) });
    const missing = await token({ grant_type: "authorization_code", client_id: c.clientId });
    expect(missing.json()).toEqual({ error: "invalid_request", error_description: "code is missing" });
    const json = await h.app.inject({
      method: "POST",
      url: "/oauth/token",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ grant_type: "refresh_token" }),
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toBe("invalid_request");
    const unknown = await token({ grant_type: "refresh_token", refresh_token: "x", client_id: "nope" });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error).toBe("invalid_client");
    const repeated = await h.app.inject({
      method: "POST",
      url: "/oauth/token",
      headers: FORM,
      payload: `grant_type=refresh_token&client_id=${c.clientId}&refresh_token=a&refresh_token=b`,
    });
    expect(repeated.json().error).toBe("invalid_request");
  });

  it("revocation of a refresh token ends the grant: refresh and access tokens stop working", async () => {
    const { c, verifier, code } = await codeFor();
    const t = (
      await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: c.clientId,
        code_verifier: verifier,
      })
    ).json();
    const other = await client(h, { isPublic: true });
    const foreign = await h.app.inject({
      method: "POST",
      url: "/oauth/revoke",
      headers: FORM,
      payload: form({ token: t.refresh_token, client_id: other.clientId }),
    });
    expect(foreign.statusCode).toBe(200);
    expect((await me(t.access_token)).statusCode).toBe(200);

    const res = await h.app.inject({
      method: "POST",
      url: "/oauth/revoke",
      headers: FORM,
      payload: form({ token: t.refresh_token, token_type_hint: "refresh_token", client_id: c.clientId }),
    });
    expect(res.statusCode).toBe(200);
    expect((await me(t.access_token)).statusCode).toBe(401);
    const refresh = await token({ grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: c.clientId });
    expect(refresh.json().error).toBe("invalid_grant");
    const unknown = await h.app.inject({
      method: "POST",
      url: "/oauth/revoke",
      headers: FORM,
      payload: form({ token: "no-such-token", client_id: c.clientId }),
    });
    expect(unknown.statusCode).toBe(200);
  });

  it("revoking an access token revokes its grant too", async () => {
    const { c, verifier, code } = await codeFor();
    const t = (
      await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: c.clientId,
        code_verifier: verifier,
      })
    ).json();
    await h.app.inject({
      method: "POST",
      url: "/oauth/revoke",
      headers: FORM,
      payload: form({ token: t.access_token, client_id: c.clientId }),
    });
    expect((await me(t.access_token)).statusCode).toBe(401);
  });

  it("Deny sends access_denied back with the state", async () => {
    const c = await client(h, { isPublic: true });
    const user = await passwordUser(h);
    const { challenge } = pkce();
    const { url } = await authorizeViaForms(
      h,
      {
        response_type: "code",
        client_id: c.clientId,
        redirect_uri: REDIRECT,
        scope: "user-info:read",
        state: "keep me & this",
        code_challenge: challenge,
        code_challenge_method: "S256",
      },
      { username: user.username, password: PASSWORD },
      "deny",
    );
    expect(url.searchParams.get("error")).toBe("access_denied");
    expect(url.searchParams.get("state")).toBe("keep me & this");
    expect(url.searchParams.get("code")).toBeNull();
  });

  it("public clients must use PKCE S256: none or plain go back as invalid_request", async () => {
    const c = await client(h, { isPublic: true });
    const base = {
      response_type: "code",
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      scope: "user-info:read",
      state: "x",
    };
    for (const extra of [
      {},
      { code_challenge: pkce().challenge, code_challenge_method: "plain" },
      { code_challenge: pkce().challenge },
    ]) {
      const res = await h.app.inject({ method: "GET", url: `/oauth/authorize?${form({ ...base, ...extra })}` });
      expect(res.statusCode).toBe(303);
      const back = new URL(res.headers.location as string);
      expect(back.searchParams.get("error")).toBe("invalid_request");
      expect(back.searchParams.get("state")).toBe("x");
    }
  });

  it("an unknown client or unregistered redirect_uri gets an error page, never a redirect", async () => {
    const c = await client(h, { isPublic: true });
    const bad = await h.app.inject({
      method: "GET",
      url: `/oauth/authorize?${form({ response_type: "code", client_id: c.clientId, redirect_uri: "https://evil.example/cb", scope: "user-info:read" })}`,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers.location).toBeUndefined();
    expect(bad.headers["content-type"]).toContain("text/html");
    expect(bad.body).toContain("redirect_uri is not registered");
    const unknown = await h.app.inject({
      method: "GET",
      url: `/oauth/authorize?${form({ response_type: "code", client_id: "nope" })}`,
    });
    expect(unknown.statusCode).toBe(400);
  });

  it("unknown scopes and other response types go back to the client", async () => {
    const c = await client(h, { isPublic: true });
    const p = pkce();
    const base = {
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      code_challenge: p.challenge,
      code_challenge_method: "S256",
    };
    const scope = await h.app.inject({
      method: "GET",
      url: `/oauth/authorize?${form({ ...base, response_type: "code", scope: "feed:read root:all" })}`,
    });
    expect(new URL(scope.headers.location as string).searchParams.get("error")).toBe("invalid_scope");
    const implicit = await h.app.inject({
      method: "GET",
      url: `/oauth/authorize?${form({ ...base, response_type: "token", scope: "feed:read" })}`,
    });
    expect(new URL(implicit.headers.location as string).searchParams.get("error")).toBe("unsupported_response_type");
  });

  it("the pages are locked down: CSP without external sources, no framing, no caching", async () => {
    const c = await client(h, { isPublic: true });
    const res = await h.app.inject({
      method: "GET",
      url: `/oauth/authorize?${form({ response_type: "code", client_id: c.clientId, scope: "feed:read", code_challenge: pkce().challenge, code_challenge_method: "S256" })}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.body).not.toMatch(/<script|https?:\/\/(?!app\.example)/);
    expect(res.body).toContain("Chart Buddy");
    expect(res.body).toContain("Read feeds, posts and comments as you");
  });

  it("login: a wrong password re-shows the form with 401; a missing CSRF token is refused", async () => {
    const c = await client(h, { isPublic: true });
    const user = await passwordUser(h);
    const params = {
      response_type: "code",
      client_id: c.clientId,
      scope: "feed:read",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    };
    const page = await h.app.inject({ method: "GET", url: `/oauth/authorize?${form(params)}` });
    const csrfCookie = page.cookies.find((k) => k.name === "sta_oauth_login_csrf")!;
    expect(csrfCookie.httpOnly).toBe(true);
    expect(csrfCookie.sameSite).toBe("Lax");
    const csrf = hiddenValue(page.body, "csrf_token");
    const wrong = await h.app.inject({
      method: "POST",
      url: "/oauth/login",
      headers: FORM,
      cookies: { sta_oauth_login_csrf: csrfCookie.value },
      payload: form({ ...params, csrf_token: csrf, username: user.username, password: "not the password" }),
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain("Wrong username or password");
    expect(wrong.body).toContain(`value="${user.username}"`);
    const forged = await h.app.inject({
      method: "POST",
      url: "/oauth/login",
      headers: FORM,
      payload: form({ ...params, csrf_token: csrf, username: user.username, password: PASSWORD }),
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.cookies.find((k) => k.name === "sta_oauth_session")).toBeUndefined();
  });

  it('"Sign in as someone else" ends the session; the next authorization asks to sign in again', async () => {
    const c = await client(h, { isPublic: true });
    const user = await passwordUser(h);
    const p = pkce();
    const params = {
      response_type: "code",
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      scope: "feed:read",
      code_challenge: p.challenge,
      code_challenge_method: "S256",
    };
    const browser = { cookies: {} as Record<string, string> };
    await authorizeViaForms(h, params, { username: user.username, password: PASSWORD }, "deny", browser);
    const consent = await h.app.inject({
      method: "GET",
      url: `/oauth/authorize?${form(params)}`,
      cookies: browser.cookies,
    });
    const csrf = hiddenValue(consent.body, "csrf_token");
    const forged = await h.app.inject({
      method: "POST",
      url: "/oauth/logout",
      headers: FORM,
      cookies: browser.cookies,
      payload: form({ ...params, csrf_token: "guessed" }),
    });
    expect(forged.statusCode).toBe(403);
    const out = await h.app.inject({
      method: "POST",
      url: "/oauth/logout",
      headers: FORM,
      cookies: browser.cookies,
      payload: form({ ...params, csrf_token: csrf }),
    });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe(`/oauth/authorize?${new URLSearchParams(params).toString()}`);
    // the old cookie no longer names a session
    const again = await h.app.inject({ method: "GET", url: out.headers.location as string, cookies: browser.cookies });
    expect(again.body).toContain('action="/oauth/login"');
  });

  it("consent: a POST without the session's CSRF token issues no code", async () => {
    const c = await client(h, { isPublic: true });
    const user = await passwordUser(h);
    const p = pkce();
    const params = {
      response_type: "code",
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      scope: "feed:read",
      code_challenge: p.challenge,
      code_challenge_method: "S256",
    };
    const browser = { cookies: {} as Record<string, string> };
    // sign in once through the forms (a real session cookie)
    await authorizeViaForms(h, params, { username: user.username, password: PASSWORD }, "deny", browser);
    expect(browser.cookies.sta_oauth_session).toBeTruthy();
    const forged = await h.app.inject({
      method: "POST",
      url: "/oauth/authorize",
      headers: FORM,
      cookies: browser.cookies,
      payload: form({ ...params, decision: "allow", csrf_token: "guessed" }),
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.headers.location).toBeUndefined();
    // with the session, the next authorization goes straight to consent
    const again = await h.app.inject({
      method: "GET",
      url: `/oauth/authorize?${form(params)}`,
      cookies: browser.cookies,
    });
    expect(again.body).toContain('value="allow"');
    expect(again.body).toContain(user.username);
  });
});

describe("password guessing on the sign-in page", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite", { rateLimits: "defaults", env: { RATE_LIMIT_WRITES: "3/60s" } });
  });
  afterAll(async () => h.close());

  it("is rate-limited per client address: 429 with Retry-After after the writes pool is spent", async () => {
    const c = await client(h, { isPublic: true });
    const user = await passwordUser(h);
    const params = {
      response_type: "code",
      client_id: c.clientId,
      scope: "feed:read",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    };
    const page = await h.app.inject({ method: "GET", url: `/oauth/authorize?${form(params)}` });
    const cookie = page.cookies.find((k) => k.name === "sta_oauth_login_csrf")!.value;
    const attempt = () =>
      h.app.inject({
        method: "POST",
        url: "/oauth/login",
        headers: FORM,
        cookies: { sta_oauth_login_csrf: cookie },
        payload: form({
          ...params,
          csrf_token: hiddenValue(page.body, "csrf_token"),
          username: user.username,
          password: "guess-guess",
        }),
      });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt()).statusCode);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const refused = await attempt();
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.headers["content-type"]).toContain("text/html");
  });
});
