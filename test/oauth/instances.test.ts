import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { systemActor } from "../../src/core/actor.js";
import { type Deps, withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { mintAccessToken } from "../../src/modules/oauth/mint-token.js";
import { rotateSigningKey } from "../../src/modules/oauth/signing-keys.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { REDIS_TEST_URL } from "../support/services.js";
import { authorizeViaForms, client, FORM, form, PASSWORD, passwordUser, pkce, REDIRECT } from "./support.js";

/** Two instances on one store and one Redis bus, each caching verified bearer tokens for a minute. */
describe.each(inject("services").redis ? ["redis"] : [])("bearer tokens across instances (%s bus)", () => {
  let dir: string;
  const instances: { deps: Deps; app: App }[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-oauth-instances-"));
    const config = loadConfig(
      {
        LOG_LEVEL: "silent",
        REDIS_URL: REDIS_TEST_URL,
        REDIS_NAMESPACE: `test-${randomUUID()}`,
        AUTH_CACHE_TTL_MS: "60000",
        RATE_LIMITS_ENABLED: "false",
      },
      { database: join(dir, "shared.db") },
    );
    for (let i = 0; i < 2; i++) {
      const deps = await createDeps(config);
      instances.push({ deps, app: await buildApp(config, deps) });
    }
  });
  afterAll(async () => {
    for (const { app, deps } of instances) {
      await app.close();
      await closeDeps(deps);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("a token revoked on one instance stops working at once on the other, despite its cache", async () => {
    const [a, b] = instances as [{ deps: Deps; app: App }, { deps: Deps; app: App }];
    const h = { app: a.app, deps: a.deps } as never;
    const c = await client(h, { isPublic: true });
    const user = await passwordUser(h);
    const p = pkce();
    const { url } = await authorizeViaForms(
      { app: a.app },
      {
        response_type: "code",
        client_id: c.clientId,
        redirect_uri: REDIRECT,
        scope: "user-info:read",
        code_challenge: p.challenge,
        code_challenge_method: "S256",
      },
      { username: user.username, password: PASSWORD },
    );
    const tokens = (
      await a.app.inject({
        method: "POST",
        url: "/oauth/token",
        headers: FORM,
        payload: form({
          grant_type: "authorization_code",
          code: url.searchParams.get("code")!,
          redirect_uri: REDIRECT,
          client_id: c.clientId,
          code_verifier: p.verifier,
        }),
      })
    ).json();
    const me = (app: App) =>
      app.inject({ method: "GET", url: "/api/v1/me", headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await me(b.app)).statusCode).toBe(200); // now cached on b for a minute

    const revoked = await a.app.inject({
      method: "POST",
      url: "/oauth/revoke",
      headers: FORM,
      payload: form({ token: tokens.refresh_token, client_id: c.clientId }),
    });
    expect(revoked.statusCode).toBe(200);
    let status = 200;
    for (let i = 0; i < 30 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await me(b.app)).statusCode;
    }
    expect(status).toBe(401);
  });

  it("signing keys dropped on one instance stop verifying at once on the other, despite both caches", async () => {
    const [a, b] = instances as [{ deps: Deps; app: App }, { deps: Deps; app: App }];
    const operator = withActor(a.deps, systemActor("test"));
    const user = await createUser(operator, { username: `drop_${randomUUID().slice(0, 8)}` });
    const { access_token: token } = await mintAccessToken(operator, { user: user.id, scopes: ["user-info:read"] });
    const me = () => b.app.inject({ method: "GET", url: "/api/v1/me", headers: { authorization: `Bearer ${token}` } });
    expect((await me()).statusCode).toBe(200); // b now caches the token and its key set

    await rotateSigningKey(operator, { dropPrevious: true });
    // Well inside b's own re-read of its key set: only the event can have told it.
    let status = 200;
    for (let i = 0; i < 10 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await me()).statusCode;
    }
    expect(status).toBe(401);
  });
});
