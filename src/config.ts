/**
 * The only reader of process.env. Config is parsed once at boot, validated with one clear
 * message per bad value, and passed down explicitly.
 */
import { isIP } from "node:net";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type SeedMode = "auto" | "always" | "never";

export interface DatabaseTarget {
  kind: "sqlite" | "postgres";
  /** A file path (or `:memory:`) for SQLite, a connection URL for PostgreSQL. */
  url: string;
}

export interface Config {
  port: number;
  host: string;
  database: DatabaseTarget;
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel (REDIS_NAMESPACE, default `sta`): deployments sharing one Redis stay apart. */
  redisNamespace: string;
  logLevel: LogLevel;
  scopePrefix: string;
  /** Largest accepted request body in bytes; larger bodies get 413. */
  bodyLimit: number;
  /** How long a verified key pair is remembered (ms); 0 checks the store on every request. */
  authCacheTtlMs: number;
  /** Browser origins allowed to call the API (CORS): `*` for any, or a list; empty = none. */
  corsOrigins: "*" | string[];
  seed: SeedMode;
  /** The simulated price feed: MARKET_SEED, MARKET_TICK_MS, MARKET_VOLATILITY, MARKET_SPREAD_BPS. */
  market: MarketSettings;
  /** Demo accounts: DEMO_BALANCE (USD) is what a new demo account starts with. */
  demo: DemoSettings;
  /** WATCHLIST_MAX_WATCHLISTS / WATCHLIST_MAX_ITEMS; reported in every watchlists `meta`. */
  watchlistLimits: WatchlistLimits;
  /** The built-in OAuth 2.0 authorization server and bearer verification. */
  oauth: OAuthSettings;
  /** Quotas per caller; see the README's "Rate limits" and src/http/rate-limit.ts. */
  rateLimits: RateLimitSettings;
  /** Fastify's trustProxy: whose X-Forwarded-For is believed for the client address. */
  trustProxy: TrustProxy;
}

/** A quota: `max` requests per `windowSeconds`, counted from the first request of a window. */
export interface RateLimitPolicy {
  max: number;
  windowSeconds: number;
}

/**
 * The pools a request can spend. `notifications` is the extra per-second limit of notifications
 * GET; `writes` the extra pool of every non-GET operation (both come on top of the default pool).
 */
export const RATE_LIMIT_POOLS = ["default", "feed", "watchlist", "market-data", "writes", "notifications"] as const;
export type RateLimitPool = (typeof RATE_LIMIT_POOLS)[number];

export interface RateLimitSettings {
  enabled: boolean;
  pools: Record<RateLimitPool, RateLimitPolicy>;
}

export const DEFAULT_RATE_LIMITS: Record<RateLimitPool, RateLimitPolicy> = {
  default: { max: 60, windowSeconds: 60 },
  feed: { max: 60, windowSeconds: 60 },
  watchlist: { max: 60, windowSeconds: 60 },
  "market-data": { max: 120, windowSeconds: 60 },
  writes: { max: 20, windowSeconds: 60 },
  notifications: { max: 1, windowSeconds: 1 },
};

/** false, true (trust every hop), a hop count, or a list of proxy addresses / CIDR ranges. */
export type TrustProxy = boolean | number | string[];

const rateLimitEnv = (pool: RateLimitPool) => `RATE_LIMIT_${pool.toUpperCase().replace("-", "_")}`;
const WINDOW_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** `60/60s`, `120/1m`, `1/1s`: requests per window; the window in s, m or h. */
export function parseRateLimitPolicy(text: string): RateLimitPolicy | null {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*([smh])\s*$/i.exec(text);
  if (!match) return null;
  const max = Number(match[1]);
  const windowSeconds = Number(match[2]) * WINDOW_UNITS[match[3]!.toLowerCase()]!;
  if (!Number.isSafeInteger(max) || max < 1 || windowSeconds < 1 || windowSeconds > 86_400) return null;
  return { max, windowSeconds };
}

function parseTrustProxy(text: string): TrustProxy | null {
  const value = text.trim().toLowerCase();
  if (value === "false") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value.split(",").map((s) => s.trim());
  const valid = (entry: string) => {
    if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
    const [address = "", bits, ...rest] = entry.split("/");
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  };
  return list.every(valid) ? list : null;
}

export const DEFAULT_DATABASE = "./data/social-trading.db";
const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
const SEED_MODES: readonly SeedMode[] = ["auto", "always", "never"];

/** Values given on the command line; they win over the environment. */
export interface ConfigFlags {
  port?: string | number | undefined;
  host?: string | undefined;
  database?: string | undefined;
  redisUrl?: string | undefined;
  logLevel?: string | undefined;
  seed?: string | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function parseDatabaseTarget(value: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: "postgres", url: value };
  const path = value.startsWith("sqlite:") ? value.slice("sqlite:".length) : value;
  return { kind: "sqlite", url: path };
}

type Env = Record<string, string | undefined>;

/** Defaults that differ by program: the CLI's commands log less than the server. */
export interface ConfigDefaults {
  logLevel?: LogLevel;
}

export function loadConfig(env: Env = process.env, flags: ConfigFlags = {}, defaults: ConfigDefaults = {}): Config {
  const problems: string[] = [];
  const pick = (flag: string | number | undefined, name: string): string | undefined => {
    if (flag !== undefined && flag !== "") return String(flag);
    const value = env[name];
    return value === undefined || value === "" ? undefined : value;
  };

  const portText = pick(flags.port, "PORT") ?? "8080";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 0 || port > 65535) {
    problems.push(`PORT must be an integer from 0 to 65535 (got "${portText}")`);
  }

  const host = pick(flags.host, "HOST") ?? "127.0.0.1";

  const databaseText = pick(flags.database, "DATABASE_URL") ?? DEFAULT_DATABASE;
  const database = parseDatabaseTarget(databaseText);
  if (database.kind === "postgres") {
    try {
      new URL(database.url);
    } catch {
      problems.push(`DATABASE_URL is not a valid PostgreSQL URL (got "${redactUrl(database.url)}")`);
    }
  } else if (database.url.trim() === "") {
    problems.push("DATABASE_URL / --database must name a SQLite file or a postgres:// URL");
  }

  const redisUrl = pick(flags.redisUrl, "REDIS_URL");
  if (redisUrl !== undefined && !/^rediss?:\/\/.+/i.test(redisUrl)) {
    problems.push(`REDIS_URL must start with redis:// or rediss:// (got "${redactUrl(redisUrl)}")`);
  }
  const redisNamespace = pick(undefined, "REDIS_NAMESPACE") ?? "sta";
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(redisNamespace)) {
    problems.push(`REDIS_NAMESPACE must be 1 to 64 letters, digits, '.', '_' or '-' (got "${redisNamespace}")`);
  }

  const logLevel = (pick(flags.logLevel, "LOG_LEVEL") ?? defaults.logLevel ?? "info").toLowerCase();
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${logLevel}")`);
  }

  const scopePrefix = pick(undefined, "SCOPE_PREFIX") ?? "service-public";
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(scopePrefix)) {
    problems.push(`SCOPE_PREFIX must be letters, digits, '.', '_' or '-' (got "${scopePrefix}")`);
  }

  const authCacheText = pick(undefined, "AUTH_CACHE_TTL_MS") ?? "1000";
  const authCacheTtlMs = Number(authCacheText);
  if (!/^\d+$/.test(authCacheText) || authCacheTtlMs > 60_000) {
    problems.push(`AUTH_CACHE_TTL_MS must be a whole number of milliseconds from 0 to 60000 (got "${authCacheText}")`);
  }

  const corsText = (pick(undefined, "CORS_ORIGINS") ?? "*").trim();
  const corsOrigins: "*" | string[] =
    corsText === "*"
      ? "*"
      : corsText
          .split(",")
          .map((o) => o.trim())
          .filter((o) => o !== "" && o !== "none");
  for (const origin of corsOrigins === "*" ? [] : corsOrigins) {
    if (!/^https?:\/\/[^/\s]+$/i.test(origin)) {
      problems.push(
        `CORS_ORIGINS must be *, none, or comma-separated origins like https://app.example.com (got "${origin}")`,
      );
    }
  }

  const bodyLimitText = pick(undefined, "BODY_LIMIT") ?? String(1024 * 1024);
  const bodyLimit = Number(bodyLimitText);
  if (!/^\d+$/.test(bodyLimitText) || bodyLimit < 1024) {
    problems.push(`BODY_LIMIT must be a whole number of bytes, at least 1024 (got "${bodyLimitText}")`);
  }

  const seed = (pick(flags.seed, "SEED") ?? "auto").toLowerCase();
  if (!SEED_MODES.includes(seed as SeedMode)) {
    problems.push(`SEED must be one of ${SEED_MODES.join(", ")} (got "${seed}")`);
  }

  const rateLimitsOn = (pick(undefined, "RATE_LIMITS_ENABLED") ?? "true").toLowerCase();
  if (rateLimitsOn !== "true" && rateLimitsOn !== "false") {
    problems.push(`RATE_LIMITS_ENABLED must be true or false (got "${rateLimitsOn}")`);
  }
  const pools = { ...DEFAULT_RATE_LIMITS };
  for (const pool of RATE_LIMIT_POOLS) {
    const text = pick(undefined, rateLimitEnv(pool));
    if (text === undefined) continue;
    const policy = parseRateLimitPolicy(text);
    if (policy) pools[pool] = policy;
    else {
      problems.push(
        `${rateLimitEnv(pool)} must be <requests>/<window> with a window in s, m or h, e.g. 60/60s or 120/1m, at most 24h (got "${text}")`,
      );
    }
  }

  const trustProxyText = pick(undefined, "TRUST_PROXY") ?? "false";
  const trustProxy = parseTrustProxy(trustProxyText);
  if (trustProxy === null) {
    problems.push(
      `TRUST_PROXY must be true, false, a hop count, or a comma-separated list of proxy addresses or CIDR ranges (got "${trustProxyText}")`,
    );
  }

  const oauth = parseOAuthSettings(pick, problems);

  const watchlistLimits = { maxWatchlists: 10, maxItemsPerWatchlist: 1000 };
  for (const [name, key, max] of [
    ["WATCHLIST_MAX_WATCHLISTS", "maxWatchlists", 1000],
    ["WATCHLIST_MAX_ITEMS", "maxItemsPerWatchlist", 100_000],
  ] as const) {
    const text = pick(undefined, name);
    if (text === undefined) continue;
    if (/^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= max) watchlistLimits[key] = Number(text);
    else problems.push(`${name} must be a whole number from 1 to ${max} (got "${text}")`);
  }

  const market = parseMarketSettings(pick, problems);
  const demo = parseDemoSettings(pick, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    market,
    demo,
    watchlistLimits,
    oauth,
    rateLimits: { enabled: rateLimitsOn === "true", pools },
    trustProxy: trustProxy as TrustProxy,
    port,
    host,
    database,
    redisUrl,
    redisNamespace,
    logLevel: logLevel as LogLevel,
    scopePrefix,
    bodyLimit,
    authCacheTtlMs,
    corsOrigins,
    seed: seed as SeedMode,
  };
}

export interface MarketSettings {
  /** Seed of the reproducible random walk: the same seed gives the same prices tick by tick. */
  seed: number;
  /** Milliseconds between ticks; 0 = no timer (ticks only when driven, as tests do). */
  tickMs: number;
  /** Standard deviation of one tick's relative move, before the asset class's factor. */
  volatility: number;
  /** Bid/ask spread in basis points of the mid price. */
  spreadBps: number;
  /** MARKET_LEASE_KEY: the Redis key naming the instance that ticks (default sta:market:leader). */
  leaseKey?: string;
}

export interface DemoSettings {
  /** What a new demo account starts with, in USD cents. */
  startingBalanceCents: number;
}

type Pick = (flag: string | number | undefined, name: string) => string | undefined;

function parseMarketSettings(pick: Pick, problems: string[]): MarketSettings {
  const market: MarketSettings = { seed: 42, tickMs: 1000, volatility: 0.0004, spreadBps: 4 };
  const seedText = pick(undefined, "MARKET_SEED");
  if (seedText !== undefined) {
    if (/^\d+$/.test(seedText) && Number(seedText) <= 0xffffffff) market.seed = Number(seedText);
    else problems.push(`MARKET_SEED must be a whole number from 0 to 4294967295 (got "${seedText}")`);
  }
  const tickText = pick(undefined, "MARKET_TICK_MS");
  if (tickText !== undefined) {
    if (/^\d+$/.test(tickText) && (Number(tickText) === 0 || (Number(tickText) >= 10 && Number(tickText) <= 3_600_000)))
      market.tickMs = Number(tickText);
    else problems.push(`MARKET_TICK_MS must be 0 (no timer) or 10 to 3600000 milliseconds (got "${tickText}")`);
  }
  const volText = pick(undefined, "MARKET_VOLATILITY");
  if (volText !== undefined) {
    const v = Number(volText);
    if (/^\d*\.?\d+$/.test(volText) && v >= 0 && v <= 0.1) market.volatility = v;
    else problems.push(`MARKET_VOLATILITY must be a decimal from 0 to 0.1 (got "${volText}")`);
  }
  const spreadText = pick(undefined, "MARKET_SPREAD_BPS");
  if (spreadText !== undefined) {
    const v = Number(spreadText);
    if (/^\d*\.?\d+$/.test(spreadText) && v >= 0 && v <= 1000) market.spreadBps = v;
    else problems.push(`MARKET_SPREAD_BPS must be a number of basis points from 0 to 1000 (got "${spreadText}")`);
  }
  const leaseKey = pick(undefined, "MARKET_LEASE_KEY");
  if (leaseKey !== undefined) {
    if (/^[\x21-\x7e]{1,200}$/.test(leaseKey)) market.leaseKey = leaseKey;
    else problems.push(`MARKET_LEASE_KEY must be 1 to 200 printable characters without spaces (got "${leaseKey}")`);
  }
  return market;
}

function parseDemoSettings(pick: Pick, problems: string[]): DemoSettings {
  const text = pick(undefined, "DEMO_BALANCE") ?? "100000";
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) {
    problems.push(`DEMO_BALANCE must be an amount of USD with at most 2 decimals, e.g. 100000 (got "${text}")`);
    return { startingBalanceCents: 10_000_000 };
  }
  return { startingBalanceCents: Number(match[1]) * 100 + Number((match[2] ?? "0").padEnd(2, "0")) };
}

export interface WatchlistLimits {
  /** How many watchlists of their own (builtin ones excluded) a user may have. */
  maxWatchlists: number;
  maxItemsPerWatchlist: number;
}

/** Never print a password that sits inside a connection URL. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, "//$1:***@");
}

export interface OAuthSettings {
  /** PUBLIC_URL: where clients reach this server; the token issuer. Unset: http://HOST:PORT. */
  publicUrl: string | undefined;
  /** OAUTH_AUDIENCE: the `aud` every access token must carry. */
  audience: string;
  /** ACCESS_TOKEN_TTL in seconds. */
  accessTokenTtl: number;
  /** REFRESH_TOKEN_TTL in seconds; each rotation starts a new period. */
  refreshTokenTtl: number;
  /** OAUTH_EXTERNAL_ISSUER + OAUTH_JWKS_URL: also trust access tokens of another issuer. */
  external: { issuer: string; jwksUrl: string } | undefined;
}

function parseSeconds(text: string, name: string, min: number, max: number, problems: string[]): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    problems.push(`${name} must be a whole number of seconds from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && !url.search && !url.hash;
  } catch {
    return false;
  }
};

function parseOAuthSettings(
  pick: (flag: undefined, name: string) => string | undefined,
  problems: string[],
): OAuthSettings {
  const publicUrlText = pick(undefined, "PUBLIC_URL");
  if (publicUrlText !== undefined && !isHttpUrl(publicUrlText)) {
    problems.push(`PUBLIC_URL must be an http:// or https:// URL without query or fragment (got "${publicUrlText}")`);
  }
  const audience = pick(undefined, "OAUTH_AUDIENCE") ?? "social-trading-api";
  if (/\s/.test(audience)) problems.push(`OAUTH_AUDIENCE must not contain spaces (got "${audience}")`);
  const accessTokenTtl = parseSeconds(
    pick(undefined, "ACCESS_TOKEN_TTL") ?? "900",
    "ACCESS_TOKEN_TTL",
    60,
    86_400,
    problems,
  );
  const refreshTokenTtl = parseSeconds(
    pick(undefined, "REFRESH_TOKEN_TTL") ?? String(30 * 86_400),
    "REFRESH_TOKEN_TTL",
    300,
    365 * 86_400,
    problems,
  );
  const jwksUrl = pick(undefined, "OAUTH_JWKS_URL");
  const externalIssuer = pick(undefined, "OAUTH_EXTERNAL_ISSUER");
  if (jwksUrl !== undefined && !isHttpUrl(jwksUrl)) {
    problems.push(`OAUTH_JWKS_URL must be an http:// or https:// URL (got "${jwksUrl}")`);
  }
  if ((jwksUrl === undefined) !== (externalIssuer === undefined)) {
    problems.push("OAUTH_JWKS_URL and OAUTH_EXTERNAL_ISSUER must be set together (the issuer's JWKS and its `iss`)");
  }
  return {
    publicUrl: publicUrlText?.replace(/\/+$/, ""),
    audience,
    accessTokenTtl,
    refreshTokenTtl,
    external: jwksUrl && externalIssuer ? { issuer: externalIssuer, jwksUrl } : undefined,
  };
}
