import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secretsKeyId } from "../../src/core/secrets.js";

const run = promisify(execFile);
const BIN = join(import.meta.dirname, "../../bin/social-trading-api.js");
const SETTINGS = ["SECRETS_KEY", "SECRETS_KEY_FILE", "SECRETS_KEY_PREVIOUS", "SECRETS_KEY_PREVIOUS_FILE", "NODE_ENV"];

/** The real CLI (the built dist/) with only the secrets settings given here; resolves even on a non-zero exit. */
async function cli(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const full: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", NODE_ENV: "test", ...env };
  for (const name of [...SETTINGS, "DATABASE_URL", "REDIS_URL", "PORT", "PUBLIC_URL"]) {
    if (!(name in env) && name !== "NODE_ENV") delete full[name];
  }
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: full, cwd });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const kidOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid as string;
const expectOneLine = (stderr: string) => {
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
};

/** Each CLI run starts Node and opens the store: seconds apiece on a loaded two-core machine. */
describe("secrets at rest from the CLI", { timeout: 180_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sta-secrets-cli-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("production mode without a key: serve refuses to start (exit 2) naming the setting, and makes nothing", async () => {
    const cwd = join(dir, "production");
    mkdirSync(cwd);
    const res = await cli(["serve", "--port", "0"], { NODE_ENV: "production" }, cwd);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      "SECRETS_KEY or SECRETS_KEY_FILE must be set in production (NODE_ENV=production): e.g. SECRETS_KEY=$(openssl rand -base64 32)",
    );
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("without a key outside production: generates data/secrets.key (0600) beside the store and reuses it", async () => {
    const folder = join(dir, "generated");
    mkdirSync(folder);
    const db = join(folder, "app.db");
    expect((await cli(["users", "create", "--username", "gen", "--database", db])).code).toBe(0);
    const path = join(folder, "secrets.key");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, "utf8");
    const first = await cli([
      "tokens",
      "create",
      "--user",
      "gen",
      "--scopes",
      "user-info:read",
      "--database",
      db,
      "--json",
    ]);
    expect(first.code).toBe(0);
    const second = await cli([
      "tokens",
      "create",
      "--user",
      "gen",
      "--scopes",
      "user-info:read",
      "--database",
      db,
      "--json",
    ]);
    expect(second.code).toBe(0);
    expect(kidOf(JSON.parse(second.stdout).access_token)).toBe(kidOf(JSON.parse(first.stdout).access_token));
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("signing-keys reencrypt: refuses without the old key, moves every key with it, records the rotation", async () => {
    const db = join(dir, "rotate.db");
    const k1 = randomBytes(32).toString("base64");
    const k2 = randomBytes(32).toString("base64");
    const id1 = secretsKeyId(Buffer.from(k1, "base64"));
    const id2 = secretsKeyId(Buffer.from(k2, "base64"));
    const old = { SECRETS_KEY: k1 };
    expect((await cli(["users", "create", "--username", "trader", "--database", db], old)).code).toBe(0);
    const minted = await cli(
      ["tokens", "create", "--user", "trader", "--scopes", "user-info:read", "--database", db, "--json"],
      old,
    );
    expect(minted.code).toBe(0);
    const kid = kidOf(JSON.parse(minted.stdout).access_token);
    expect((await cli(["signing-keys", "rotate", "--database", db], old)).code).toBe(0);
    expect(existsSync(join(dir, "secrets.key"))).toBe(false);

    // The new key alone: the command and serve both stop at once, naming the key id needed.
    const lacking = await cli(["signing-keys", "reencrypt", "--database", db, "--json"], { SECRETS_KEY: k2 });
    expect(lacking.code).toBe(1);
    expect(JSON.parse(lacking.stdout).error).toMatchObject({ code: "SecretsKeyUnavailable" });
    expect(lacking.stderr).toContain(`are sealed under secrets key ${id1}, which this server does not have`);
    expectOneLine(lacking.stderr);
    const refused = await cli(["serve", "--port", "0", "--database", db], { SECRETS_KEY: k2 });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^error: the OAuth signing keys .+ are sealed under secrets key ${id1}, which this server does not have`,
      ),
    );
    expectOneLine(refused.stderr);

    const rotating = { SECRETS_KEY: k2, SECRETS_KEY_PREVIOUS: k1 };
    const done = await cli(["signing-keys", "reencrypt", "--database", db], rotating);
    expect(done.code).toBe(0);
    expect(done.stderr).toContain(`… re-encrypting signing key ${kid}: secrets key ${id1} → ${id2}`);
    expect(done.stderr.trim().split("\n")).toHaveLength(2);
    expect(done.stdout).toBe(
      `re-encrypted 2 signing keys under secrets key ${id2}; 0 already were under it. SECRETS_KEY_PREVIOUS is no longer needed by the signing keys.\n`,
    );
    const again = await cli(["signing-keys", "reencrypt", "--database", db, "--json"], rotating);
    expect(again.code).toBe(0);
    const report = JSON.parse(again.stdout);
    expect(report).toMatchObject({ keyId: id2, reencrypted: [] });
    expect(report.unchanged).toHaveLength(2);
    expect(report.unchanged).toContain(kid);

    // The old key alone reads nothing now; the new one alone signs.
    const oldOnly = await cli(
      ["tokens", "create", "--user", "trader", "--scopes", "user-info:read", "--database", db, "--json"],
      old,
    );
    expect(oldOnly.code).toBe(1);
    expect(JSON.parse(oldOnly.stdout).error.message).toContain(`secrets key ${id2}, which this server does not have`);
    const newOnly = await cli(
      ["tokens", "create", "--user", "trader", "--scopes", "user-info:read", "--database", db, "--json"],
      { SECRETS_KEY: k2 },
    );
    expect(newOnly.code).toBe(0);

    const audit = await cli(["audit", "list", "--action", "signing-keys.reencrypted", "--database", db, "--json"], {
      SECRETS_KEY: k2,
    });
    const events = JSON.parse(audit.stdout) as { actor: string; details: Record<string, unknown> }[];
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ actor: "system:cli", details: { keyId: id2, from: id1, count: 2 } });
    expect(events[0]).toMatchObject({ details: { keyId: id2, count: 0 } });
  });

  it("upgrade: a store whose signing key is plain JWK is sealed by the first serve, and its tokens keep working", async () => {
    const db = join(dir, "upgrade.db");
    const key = randomBytes(32).toString("base64");
    const env = { SECRETS_KEY: key, PUBLIC_URL: "http://127.0.0.1:1" };
    expect((await cli(["users", "create", "--username", "old", "--database", db], env)).code).toBe(0);
    // The row as the server wrote it before 0105.
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const kid = "legacy-cli-kid";
    const store = new Database(db);
    store
      .prepare(
        "insert into oauth_signing_keys (kid, alg, private_jwk, public_jwk, created_at, retired_at) values (?, ?, ?, ?, ?, null)",
      )
      .run(
        kid,
        "ES256",
        JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: "ES256" }),
        JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" }),
        new Date().toISOString(),
      );
    store.close();
    const minted = await cli(
      ["tokens", "create", "--user", "old", "--scopes", "user-info:read", "--database", db, "--json"],
      env,
    );
    expect(minted.code).toBe(0);
    const token = JSON.parse(minted.stdout).access_token as string;
    expect(kidOf(token)).toBe(kid);

    const full = { ...process.env, ...env, LOG_LEVEL: "info", NODE_ENV: "test" };
    const child = spawn(
      process.execPath,
      [BIN, "serve", "--port", "0", "--seed", "never", "--database", db, "--json"],
      {
        env: full,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    try {
      const baseUrl = await new Promise<string>((resolve, reject) => {
        const look = (chunk: Buffer) => {
          out += chunk;
          const found = /"baseUrl": "([^"]+)"/.exec(out);
          if (found) resolve(found[1]!);
        };
        child.stdout.on("data", look);
        child.stderr.on("data", look);
        child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      expect(out).toContain(
        `sealed 1 OAuth signing key(s) stored plain under secrets key ${secretsKeyId(Buffer.from(key, "base64"))}`,
      );
      const res = await fetch(`${baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${token}`, "x-request-id": crypto.randomUUID() },
      });
      expect(res.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    }
    const reader = new Database(db, { readonly: true });
    const row = reader.prepare("select private_jwk as privateJwk from oauth_signing_keys where kid = ?").get(kid) as {
      privateJwk: string;
    };
    reader.close();
    expect(row.privateJwk).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(row.privateJwk).not.toContain('"d"');
    const after = await cli(
      ["tokens", "create", "--user", "old", "--scopes", "user-info:read", "--database", db, "--json"],
      env,
    );
    expect(kidOf(JSON.parse(after.stdout).access_token)).toBe(kid);
  });
});
