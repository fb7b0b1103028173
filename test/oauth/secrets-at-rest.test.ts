import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { exportJWK, generateKeyPair } from "jose";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { systemActor } from "../../src/core/actor.js";
import { SecretsError, sealedKeyId, secretsKeyId } from "../../src/core/secrets.js";
import { createSecretBox } from "../../src/infra/secrets/secret-box.js";
import { listAudit } from "../../src/modules/audit/list-audit.js";
import { type Deps, withActor } from "../../src/modules/context.js";
import {
  prepareSigningKeys,
  reencryptSigningKeys,
  rotateSigningKey,
  SIGNING_ALG,
} from "../../src/modules/oauth/signing-keys.js";
import { closeDeps, createDeps, generatedKeyPath } from "../../src/runtime.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const ME = "/api/v1/me";
const b64 = (key: Buffer) => key.toString("base64");
const SEALED = /^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/;

const me = (app: App, token: string) =>
  app.inject({ method: "GET", url: ME, headers: { authorization: `Bearer ${token}`, "x-request-id": randomUUID() } });

const kidOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid as string;

/** Another process on the harness's store ("a restart"): same database, the secrets settings given. */
async function restart(
  h: Harness,
  env: Record<string, string>,
): Promise<{ deps: Deps; app: App; close(): Promise<void> }> {
  const config = loadConfig({ LOG_LEVEL: "silent", ...env }, { database: h.config.database.url });
  const deps = await createDeps(config);
  const app = await buildApp(config, deps);
  return {
    deps,
    app,
    async close() {
      await app.close();
      await closeDeps(deps);
    },
  };
}

/** A logger whose messages land in `lines`. */
function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)).msg);
      done();
    },
  });
  return { log: pino({ level: "info" }, sink), lines };
}

const rows = (deps: Deps) =>
  deps.db.kysely.selectFrom("oauthSigningKeys").select(["kid", "privateJwk"]).orderBy("kid").execute();

describe.each(engines())("signing private keys at rest (%s)", (engine) => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { SECRETS_KEY: b64(k1) } });
  });
  afterAll(async () => h?.close());

  it("the stored row holds ciphertext under the configured key, no private key member", async () => {
    await h.bearer(["user-info:read"]);
    const stored = await rows(h.deps);
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) {
      expect(row.privateJwk).toMatch(SEALED);
      expect(sealedKeyId(row.privateJwk)).toBe(secretsKeyId(k1));
      expect(row.privateJwk).not.toContain('"d"');
      expect(() => JSON.parse(row.privateJwk)).toThrow();
      // It opens, with the key, to the private JWK of its own row only.
      const jwk = JSON.parse(createSecretBox(k1).open(row.privateJwk, `oauth_signing_keys:${row.kid}`));
      expect(jwk).toMatchObject({ kid: row.kid, alg: SIGNING_ALG, kty: "EC" });
      expect(typeof jwk.d).toBe("string");
    }
  });

  it("tokens signed before a restart verify after it, and the restarted server signs with the same key", async () => {
    const before = await h.bearer(["user-info:read"]);
    const after = await restart(h, { SECRETS_KEY: b64(k1) });
    try {
      expect((await me(after.app, before.token)).statusCode).toBe(200);
      const key = await after.deps.signingKeys.current();
      expect(key.kid).toBe(kidOf(before.token));
      expect((await prepareSigningKeys(withActor(after.deps, systemActor("serve")))).sealed).toEqual([]);
    } finally {
      await after.close();
    }
  });

  it("a wrong key is a start-up error naming the key id needed; tokens still verify, signing says why", async () => {
    const before = await h.bearer(["user-info:read"]);
    const wrongKey = randomBytes(32);
    const wrong = await restart(h, { SECRETS_KEY: b64(wrongKey) });
    try {
      const start = prepareSigningKeys(withActor(wrong.deps, systemActor("serve")));
      await expect(start).rejects.toBeInstanceOf(SecretsError);
      await expect(start).rejects.toThrow(
        `is sealed under secrets key ${secretsKeyId(k1)}, which this server does not have (it has ${secretsKeyId(wrongKey)}): set SECRETS_KEY (or SECRETS_KEY_PREVIOUS) to it`,
      );
      // Verifying needs the public half only.
      expect((await me(wrong.app, before.token)).statusCode).toBe(200);
      await expect(wrong.deps.signingKeys.current()).rejects.toThrow(`secrets key ${secretsKeyId(k1)}`);
    } finally {
      await wrong.close();
    }
  });

  it("reencrypt moves every row to the new key; the old key alone no longer reads them; tokens keep working", async () => {
    await rotateSigningKey(withActor(h.deps, systemActor("test")));
    const before = await h.bearer(["user-info:read"]);
    const kids = (await rows(h.deps)).map((r) => r.kid);
    expect(kids.length).toBeGreaterThanOrEqual(2);

    const rotating = await restart(h, { SECRETS_KEY: b64(k2), SECRETS_KEY_PREVIOUS: b64(k1) });
    try {
      const steps: { kid: string; from: string }[] = [];
      const report = await reencryptSigningKeys(withActor(rotating.deps, systemActor("cli")), (s) => steps.push(s));
      expect(report.keyId).toBe(secretsKeyId(k2));
      expect(report.reencrypted.map((r) => r.kid).sort()).toEqual(kids);
      expect(report.reencrypted.every((r) => r.from === secretsKeyId(k1))).toBe(true);
      expect(steps.map((s) => s.kid).sort()).toEqual(kids);
      expect(report.unchanged).toEqual([]);

      const events = await listAudit(withActor(rotating.deps, systemActor("test")), {
        action: "signing-keys.reencrypted",
        limit: 10,
      });
      expect(events[0]).toMatchObject({
        action: "signing-keys.reencrypted",
        outcome: "success",
        actor: "system:cli",
        details: { keyId: secretsKeyId(k2), from: secretsKeyId(k1), count: kids.length },
      });
      // Run again: nothing to move, still recorded.
      const again = await reencryptSigningKeys(withActor(rotating.deps, systemActor("cli")));
      expect(again.reencrypted).toEqual([]);
      expect(again.unchanged.sort()).toEqual(kids);
    } finally {
      await rotating.close();
    }

    const oldOnly = createSecretBox(k1);
    const newOnly = createSecretBox(k2);
    for (const row of await rows(h.deps)) {
      expect(sealedKeyId(row.privateJwk)).toBe(secretsKeyId(k2));
      expect(() => oldOnly.open(row.privateJwk, `oauth_signing_keys:${row.kid}`)).toThrow(
        `encrypted under secrets key ${secretsKeyId(k2)}, which is not configured`,
      );
      expect(JSON.parse(newOnly.open(row.privateJwk, `oauth_signing_keys:${row.kid}`)).kid).toBe(row.kid);
    }

    const newKeyOnly = await restart(h, { SECRETS_KEY: b64(k2) });
    try {
      await prepareSigningKeys(withActor(newKeyOnly.deps, systemActor("serve")));
      expect((await me(newKeyOnly.app, before.token)).statusCode).toBe(200);
      expect((await newKeyOnly.deps.signingKeys.current()).kid).toBe(kidOf(before.token));
    } finally {
      await newKeyOnly.close();
    }
    const oldKeyOnly = await restart(h, { SECRETS_KEY: b64(k1) });
    try {
      await expect(prepareSigningKeys(withActor(oldKeyOnly.deps, systemActor("serve")))).rejects.toThrow(
        `secrets key ${secretsKeyId(k2)}, which this server does not have`,
      );
    } finally {
      await oldKeyOnly.close();
    }
  });
});

describe.each(engines())("a store made before secrets at rest (%s)", (engine) => {
  const k = randomBytes(32);
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { SECRETS_KEY: b64(k) } });
  });
  afterAll(async () => h?.close());

  it("keeps its plain key working, and the first start seals it: no token breaks across the upgrade", async () => {
    // The row exactly as signing-keys.ts wrote it before 0105: the private JWK as plain JSON.
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const kid = "legacy-kid-0001";
    const privateJwk = JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG });
    const publicJwk = JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: "sig" });
    const createdAt = new Date().toISOString();
    await h.deps.db.kysely
      .insertInto("oauthSigningKeys")
      .values({ kid, alg: SIGNING_ALG, privateJwk, publicJwk, createdAt, retiredAt: null })
      .execute();

    // Before the upgrade's first start (e.g. the CLI): the plain key signs and verifies.
    const before = await h.bearer(["user-info:read"]);
    expect(kidOf(before.token)).toBe(kid);

    const upgraded = await restart(h, { SECRETS_KEY: b64(k) });
    try {
      const check = await prepareSigningKeys(withActor(upgraded.deps, systemActor("serve")));
      expect(check.sealed).toEqual([kid]);
      const [row] = await rows(upgraded.deps);
      expect(row!.privateJwk).toMatch(SEALED);
      expect(row!.privateJwk).not.toContain('"d"');
      expect((await me(upgraded.app, before.token)).statusCode).toBe(200);
      expect((await upgraded.deps.signingKeys.current()).kid).toBe(kid);
      const [event] = await listAudit(withActor(upgraded.deps, systemActor("test")), {
        action: "signing-keys.reencrypted",
        limit: 1,
      });
      expect(event).toMatchObject({ actor: "system:serve", details: { from: "plain", count: 1, kids: kid } });
      // A second start has nothing left to seal.
      expect((await prepareSigningKeys(withActor(upgraded.deps, systemActor("serve")))).sealed).toEqual([]);
    } finally {
      await upgraded.close();
    }
    // The instance that signed before the upgrade keeps verifying and signing (its key is in memory).
    h.deps.signingKeys.invalidate();
    expect((await me(h.app, (await h.bearer(["user-info:read"])).token)).statusCode).toBe(200);
  });
});

describe("the key generated outside production", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite");
  });
  afterAll(async () => h?.close());

  it("lives beside the SQLite file with mode 0600, is reused by the next start, and a log line says so", async () => {
    const path = join(dirname(h.config.database.url), "secrets.key");
    expect(generatedKeyPath(h.config)).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, "utf8");
    const keyId = secretsKeyId(Buffer.from(text.trim(), "base64"));
    expect(h.deps.secrets.keyId).toBe(keyId);
    await h.bearer(["user-info:read"]);

    const { log, lines } = capture();
    const config = loadConfig({ LOG_LEVEL: "info" }, { database: h.config.database.url });
    const next = await createDeps(config, { log });
    try {
      expect(next.secrets.keyId).toBe(keyId);
      expect(lines).toContain(`SECRETS_KEY is not set: using secrets key ${keyId} generated earlier in ${path}`);
      expect((await next.signingKeys.current()).privateKey).toBeDefined();
    } finally {
      await closeDeps(next);
    }
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("is made, with a log line, when a store first starts; PostgreSQL uses ./data, :memory: none", async () => {
    const dir = dirname(h.config.database.url);
    const database = join(dir, "second", "app.db");
    const { log, lines } = capture();
    mkdirSync(join(dir, "second"));
    const deps = await createDeps(loadConfig({}, { database }), { log });
    try {
      const path = join(dir, "second", "secrets.key");
      expect(existsSync(path)).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(lines.find((l) => l.startsWith("SECRETS_KEY is not set: generated secrets key"))).toContain(
        `${deps.secrets.keyId} into ${path} (owner-only); it is used from now on`,
      );
    } finally {
      await closeDeps(deps);
    }
    expect(generatedKeyPath(loadConfig({}, { database: "postgres://localhost/x" }))).toBe(join("data", "secrets.key"));
    expect(generatedKeyPath(loadConfig({}, { database: ":memory:" }))).toBeUndefined();
  });
});
