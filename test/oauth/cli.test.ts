import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import type { Deps } from "../../src/modules/context.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { authorizeViaForms, FORM, form, pkce } from "./support.js";

const BIN = join(import.meta.dirname, "../../bin/social-trading-api.js");

/** Runs the real CLI (the built dist/, as `npx social-trading-api` does), optionally feeding stdin. */
function cli(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: "warn" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

describe("OAuth from the CLI: apps create → sign-in → an API call with a bearer token", () => {
  let dir: string;
  let db: string;
  let deps: Deps;
  let app: App;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-oauth-cli-"));
    db = join(dir, "cli.db");
  });
  afterAll(async () => {
    if (app) await app.close();
    if (deps) await closeDeps(deps);
    rmSync(dir, { recursive: true, force: true });
  });

  const serveInProcess = async () => {
    const config = loadConfig({ LOG_LEVEL: "silent" }, { database: db });
    deps = await createDeps(config);
    app = await buildApp(config, deps);
  };

  it("creates a user with a password, public and confidential apps, and mints a token", async () => {
    const user = await cli(
      ["users", "create", "--username", "trader", "--password-stdin", "--database", db, "--json"],
      "s3cret-pass\n",
    );
    expect(user.code).toBe(0);
    expect(JSON.parse(user.stdout).username).toBe("trader");

    const short = await cli([
      "users",
      "set-password",
      "--user",
      "trader",
      "--password",
      "short",
      "--database",
      db,
      "--json",
    ]);
    expect(short.code).toBe(1);
    expect(JSON.parse(short.stdout).error.code).toBe("ValidationFailed");
    const set = await cli([
      "users",
      "set-password",
      "--user",
      "trader",
      "--password",
      "better-pass-1",
      "--database",
      db,
    ]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain("password set for trader");

    const pub = await cli([
      "apps",
      "create",
      "--name",
      "Pocket Trader",
      "--redirect-uri",
      "https://app.example/cb",
      "--public",
      "--database",
      db,
      "--json",
    ]);
    expect(pub.code).toBe(0);
    const created = JSON.parse(pub.stdout);
    expect(created).toMatchObject({ name: "Pocket Trader", type: "public", redirectUris: ["https://app.example/cb"] });
    expect(created.clientId).toMatch(/^sta_client_/);
    expect(created.clientSecret).toBeUndefined();

    const conf = await cli([
      "apps",
      "create",
      "--name",
      "Server App",
      "--redirect-uri",
      "https://srv.example/cb",
      "--redirect-uri",
      "http://127.0.0.1/cb",
      "--database",
      db,
    ]);
    expect(conf.code).toBe(0);
    expect(conf.stdout).toMatch(/client_secret: sta_cs_\S+ {3}\(shown once\)/);

    const bad = await cli([
      "apps",
      "create",
      "--name",
      "X",
      "--redirect-uri",
      "http://evil.example/cb",
      "--database",
      db,
      "--json",
    ]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error.message).toContain("plain http is allowed only on 127.0.0.1");

    const minted = await cli([
      "tokens",
      "create",
      "--user",
      "trader",
      "--scopes",
      "user-info:read,service-public:notifications:read",
      "--ttl",
      "600",
      "--database",
      db,
      "--json",
    ]);
    expect(minted.code).toBe(0);
    const token = JSON.parse(minted.stdout);
    expect(Object.keys(token).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
    expect(token).toMatchObject({
      token_type: "Bearer",
      expires_in: 600,
      scope: "service-public:user-info:read service-public:notifications:read",
    });

    const tooLong = await cli([
      "tokens",
      "create",
      "--user",
      "trader",
      "--scopes",
      "feed:read",
      "--ttl",
      "999999",
      "--database",
      db,
      "--json",
    ]);
    expect(tooLong.code).toBe(1);

    const listed = await cli(["signing-keys", "list", "--database", db, "--json"]);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ alg: "ES256", status: "active" })]);

    // a server on the same store accepts the CLI's token and runs the browser flow for the CLI's app
    await serveInProcess();
    const me = await app.inject({
      method: "GET",
      url: "/api/v1/me",
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ username: "trader" });

    const p = pkce();
    const { url } = await authorizeViaForms(
      { app },
      {
        response_type: "code",
        client_id: created.clientId,
        redirect_uri: "https://app.example/cb",
        scope: "user-info:read",
        state: "cli",
        code_challenge: p.challenge,
        code_challenge_method: "S256",
      },
      { username: "trader", password: "better-pass-1" },
    );
    const exchanged = await app.inject({
      method: "POST",
      url: "/oauth/token",
      headers: FORM,
      payload: form({
        grant_type: "authorization_code",
        code: url.searchParams.get("code")!,
        redirect_uri: "https://app.example/cb",
        client_id: created.clientId,
        code_verifier: p.verifier,
      }),
    });
    expect(exchanged.statusCode).toBe(200);
    const viaBrowser = await app.inject({
      method: "GET",
      url: "/api/v1/me",
      headers: { authorization: `Bearer ${exchanged.json().access_token}` },
    });
    expect(viaBrowser.json().username).toBe("trader");

    // rotation from the CLI: the running server keeps accepting the earlier token
    const rotated = await cli(["signing-keys", "rotate", "--database", db, "--json"]);
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout).status).toBe("active");
    const still = await app.inject({
      method: "GET",
      url: "/api/v1/me",
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(still.statusCode).toBe(200);
  }, 180_000);

  it("audit list shows what the commands above did, newest first, and filters by action", async () => {
    const all = await cli(["audit", "list", "--database", db, "--json"]);
    expect(all.code).toBe(0);
    const events = JSON.parse(all.stdout) as { action: string; actor: string; details: Record<string, unknown> }[];
    const actions = events.map((e) => e.action);
    expect(actions[0]).toBe("signing-key.rotated");
    for (const action of ["password.set", "oauth-client.created", "access-token.minted"]) {
      expect(actions).toContain(action);
    }
    expect(events.find((e) => e.action === "password.set")!.actor).toBe("system:cli");
    expect(all.stdout).not.toContain("better-pass-1");

    const clients = await cli(["audit", "list", "--action", "oauth-client.created", "--database", db]);
    expect(clients.stdout.trim().split("\n")).toHaveLength(2);
    expect(clients.stdout).toContain("Pocket Trader");

    const badSince = await cli(["audit", "list", "--since", "yesterday-ish", "--database", db]);
    expect(badSince.code).not.toBe(0);
    expect(badSince.stderr).toContain("ISO 8601");
  }, 60_000);
});
