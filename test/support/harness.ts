import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Logger } from "pino";
import { inject } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { type Config, loadConfig, RATE_LIMIT_POOLS } from "../../src/config.js";
import { systemActor, type UserActor } from "../../src/core/actor.js";
import type { Clock } from "../../src/core/clock.js";
import { OPERATOR_SCOPE } from "../../src/core/scopes.js";
import { type Deps, withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import type { UserRow } from "../../src/modules/identity/identity.repository.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { ensureInstrumentCatalog } from "../../src/modules/market/seed-catalog.js";
import { mintAccessToken } from "../../src/modules/oauth/mint-token.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { PG_ADMIN_URL } from "./services.js";

export type Engine = "sqlite" | "postgres";

/** The engines this run covers: SQLite always, PostgreSQL when its server is up (CI requires it). */
export function engines(): Engine[] {
  return inject("services").postgres ? ["sqlite", "postgres"] : ["sqlite"];
}

export type Headers = Record<string, string>;

export interface TestUser {
  user: UserRow;
  /** x-api-key / x-user-key for this user, plus a fresh x-request-id. */
  headers: Headers;
  keyId: string;
  /** The actor this key pair authenticates as, for calling use cases directly. */
  actor: UserActor;
}

export interface Harness {
  engine: Engine;
  app: App;
  deps: Deps;
  config: Config;
  /** A new user holding a key pair with `scopes` (bare or prefixed). */
  user(scopes: string[], options?: { username?: string; environment?: string }): Promise<TestUser>;
  /**
   * A second app on the same deps (so the same store and rate-limit counters) whose every pool
   * allows 1 request per 60 s: give it callers the first app has not counted.
   */
  tinyLimitApp(): Promise<App>;
  /**
   * A bearer token (the OAuth access token `tokens create` mints) for a new user, or for `user`;
   * `expired: true` signs it as if an hour ago, so it has expired.
   */
  bearer(
    scopes: string[],
    options?: { user?: UserRow; ttlSeconds?: number; expired?: boolean },
  ): Promise<{ token: string; user: UserRow; headers: Headers }>;
  close(): Promise<void>;
}

/** Every rate-limit pool at `limit` (e.g. `1000000/1m`), as environment variables. */
export function rateLimitEnv(limit: string): Record<string, string> {
  return Object.fromEntries(RATE_LIMIT_POOLS.map((p) => [`RATE_LIMIT_${p.toUpperCase().replace("-", "_")}`, limit]));
}

/** Suites call routes many times in a row; rate-limit suites ask for the real defaults. */
const RAISED_RATE_LIMITS = rateLimitEnv("1000000/1m");

/** A fresh store for one test file: a temp SQLite file, or a new PostgreSQL database. */
async function freshStore(engine: Engine): Promise<{ database: string; drop: () => Promise<void> }> {
  if (engine === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "sta-test-"));
    return { database: join(dir, "test.db"), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `sta_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    database: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface HarnessOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** A logger to capture log lines (the default logs nothing). */
  log?: Logger;
  /** `raised` (default): limits no suite reaches; `defaults`: the server's real limits. */
  rateLimits?: "raised" | "defaults";
  /**
   * The address the app is given for its fresh store, from the one made for it (e.g. through a
   * test's TCP proxy, test/faults/tcp-proxy.ts); setup and cleanup still use the real address.
   */
  storeAddress?: (database: string) => string;
}

/** Builds the app exactly as `serve` does (same config loader, deps and buildApp). */
export async function startHarness(engine: Engine, options: HarnessOptions = {}): Promise<Harness> {
  const store = await freshStore(engine);
  const limits = options.rateLimits === "defaults" ? {} : RAISED_RATE_LIMITS;
  // Uploaded media of this app: a temp folder of its own, never ./data/media.
  const mediaDir = mkdtempSync(join(tmpdir(), "sta-media-"));
  const config = loadConfig(
    // Every market always open (decision 0128), whatever the hour a suite runs at; a suite of market
    // hours passes MARKET_HOURS=exchange and drives the clock.
    { LOG_LEVEL: "silent", MEDIA_DIR: mediaDir, MARKET_HOURS: "always", ...limits, ...options.env },
    {
      database: options.storeAddress ? options.storeAddress(store.database) : store.database,
    },
  );
  const deps = await createDeps(config, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  // The instrument catalog is reference data every suite may need (watchlists, feeds, trading).
  await ensureInstrumentCatalog(deps);
  const app = await buildApp(config, deps);
  const operator = withActor(deps, systemActor("test"));
  let counter = 0;
  let tiny: Promise<App> | undefined;
  return {
    engine,
    app,
    deps,
    config,
    async user(scopes, opts = {}) {
      counter += 1;
      const username = opts.username ?? `user${counter}_${randomBytes(3).toString("hex")}`;
      const user = await createUser(operator, { username, firstName: "Test", lastName: `User${counter}` });
      // The operator's scope is never granted by name: it makes the operator's key pair (0149).
      const isOperator = (s: string) => s === OPERATOR_SCOPE || s === `${config.scopePrefix}:${OPERATOR_SCOPE}`;
      const ordinary = scopes.filter((s) => !isOperator(s));
      const key = await createKeyPair(operator, {
        user: user.id,
        scopes: ordinary.length || scopes.length > ordinary.length ? ordinary : ["user-info:read"],
        environment: opts.environment,
        operator: scopes.some(isOperator),
      });
      return {
        user,
        keyId: key.id,
        headers: { "x-api-key": key.apiKey, "x-user-key": key.userKey, "x-request-id": randomUUID() },
        actor: {
          kind: "user",
          userId: user.id,
          gcid: user.gcid,
          via: "key-pair",
          credentialId: key.id,
          scopes: key.scopes.map((s) => s.slice(config.scopePrefix.length + 1)),
          environment: key.environment,
        },
      };
    },
    tinyLimitApp() {
      tiny ??= buildApp({ ...config, rateLimits: loadConfig(rateLimitEnv("1/60s")).rateLimits }, deps);
      return tiny;
    },
    async bearer(scopes, opts = {}) {
      const user =
        opts.user ?? (await createUser(operator, { username: `oauth${++counter}_${randomBytes(3).toString("hex")}` }));
      const clock = opts.expired ? { now: () => new Date(deps.clock.now().getTime() - 3_600_000) } : deps.clock;
      const minted = await mintAccessToken(withActor({ ...deps, clock }, operator.actor), {
        user: user.id,
        scopes: scopes.length ? scopes : ["user-info:read"],
        ttlSeconds: opts.ttlSeconds ?? 300,
      });
      const token = minted.access_token;
      return { token, user, headers: { authorization: `Bearer ${token}`, "x-request-id": randomUUID() } };
    },
    async close() {
      await app.close();
      if (tiny) await (await tiny).close();
      await closeDeps(deps);
      await store.drop();
      rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}

export const rid = () => randomUUID();
