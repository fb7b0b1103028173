/**
 * The only reader of process.env. Config is parsed once at boot, validated with one clear
 * message per bad value, and passed down explicitly. Each area has its own parser under
 * src/config/; loadConfig composes them and throws one ConfigError listing every problem.
 */
import { type AuditSettings, parseAuditSettings } from "./config/audit.js";
import { type ClubProgramme, parseClubProgramme } from "./config/clubs.js";
import { type CopyTradingSettings, parseCopyTradingSettings } from "./config/copy-trading.js";
import { type DemoSettings, type MarketSettings, parseDemoSettings, parseMarketSettings } from "./config/market.js";
import { type MarketHoursSettings, parseMarketHoursSettings } from "./config/market-hours.js";
import { type MediaSettings, parseMediaSettings } from "./config/media.js";
import { type MetricsSettings, parseMetricsSettings } from "./config/metrics.js";
import { type OAuthSettings, parseOAuthSettings } from "./config/oauth.js";
import { type PeopleSettings, parsePeopleSettings } from "./config/people.js";
import { type PriceAlertSettings, parsePriceAlertSettings } from "./config/price-alerts.js";
import {
  parseRateLimitSettings,
  parseTrustProxySetting,
  type RateLimitSettings,
  type TrustProxy,
} from "./config/rate-limits.js";
import { parseRealtimeSettings, type RealtimeSettings } from "./config/realtime.js";
import { parseSandboxSettings, type SandboxSettings } from "./config/sandbox.js";
import { parseSecretsSettings, type SecretsSettings } from "./config/secrets.js";
import { type LogLevel, parseListenSettings, parseServerSettings, type SeedMode } from "./config/server.js";
import type { Env, Pick } from "./config/shared.js";
import { parseSignInSettings, type SignInSettings } from "./config/sign-in.js";
import { parseReadCacheSettings, type ReadCacheSettings } from "./config/social.js";
import { type DatabaseTarget, parseStorageSettings } from "./config/storage.js";
import { parseWatchlistLimits, type WatchlistLimits } from "./config/watchlists.js";

export type { DemoSettings, MarketSettings } from "./config/market.js";
export type { MediaSettings } from "./config/media.js";
export type { MetricsSettings } from "./config/metrics.js";
export type { OAuthSettings } from "./config/oauth.js";
export {
  DEFAULT_RATE_LIMITS,
  parseRateLimitPolicy,
  RATE_LIMIT_POOLS,
  type RateLimitPolicy,
  type RateLimitPool,
  type RateLimitSettings,
  type TrustProxy,
} from "./config/rate-limits.js";
export type { RealtimeSettings } from "./config/realtime.js";
export { type ConfiguredKey, MAKE_A_KEY, type SecretsSettings } from "./config/secrets.js";
export type { LogLevel, SeedMode } from "./config/server.js";
export { redactUrl } from "./config/shared.js";
export type { SignInSettings } from "./config/sign-in.js";
export type { ReadCacheSettings } from "./config/social.js";
export {
  type DatabaseTarget,
  DEFAULT_DATABASE,
  DEFAULT_QUERY_TIMEOUT_MS,
  databaseProblem,
  inDefaultDataFolder,
  parseDatabaseTarget,
} from "./config/storage.js";
export type { WatchlistLimits } from "./config/watchlists.js";

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
  /** MARKET_HOURS: exchange sessions or always open (decision 0128). */
  marketHours: MarketHoursSettings;
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
  /** Cached answers of social reads: READ_CACHE_MB (0 = off), READ_CACHE_MAX_AGE_MS. */
  readCache: ReadCacheSettings;
  /** The audit trail of security events: AUDIT_RETENTION_DAYS. */
  audit: AuditSettings;
  /** The club programme: tiers, grace before a downgrade, manager, offers, webinars (CLUBS_FILE). */
  clubs: ClubProgramme;
  /** Price alerts: PRICE_ALERTS_MAX_PER_USER. */
  priceAlerts: PriceAlertSettings;
  /** Copy trading: COPY_AGENT_BALANCE, COPY_MIN_INVESTMENT, COPY_MAX_INVESTMENT, COPY_MAX_USER_TOKENS, COPY_MAX_COPIES_PER_USER. */
  copyTrading: CopyTradingSettings;
  people: PeopleSettings;
  /** The sign-in throttle per account: SIGNIN_FREE_FAILURES, SIGNIN_WINDOW_MINUTES, SIGNIN_MAX_DELAY_SECONDS, SIGNIN_DEVICE_DAYS. */
  signIn: SignInSettings;
  /** NODE_ENV=production: settings that have a convenient default elsewhere must be given (0105). */
  production: boolean;
  /** The key that seals secrets in the store: SECRETS_KEY(_FILE), SECRETS_KEY_PREVIOUS(_FILE) (0105). */
  secrets: Omit<SecretsSettings, "production">;
  /** The Prometheus endpoint: METRICS (off by default) and METRICS_TOKEN. */
  metrics: MetricsSettings;
  /** The real-time WebSocket channel at `/ws`: REALTIME_* (docs/realtime.md). */
  realtime: RealtimeSettings;
  /** Uploaded media: MEDIA_DIR. */
  media: MediaSettings;
  /** The sandbox control API at /sandbox/v1 (SANDBOX; off by default in production). */
  sandbox: SandboxSettings;
}

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

/** Defaults that differ by program: the CLI's commands log less than the server. */
export interface ConfigDefaults {
  logLevel?: LogLevel;
}

/**
 * Node's own options (`NODE_OPTIONS`), read apart from `loadConfig`: `serve` sizes V8's heap before
 * the program's modules load, unless these size it already (docs/decisions/0196).
 */
export function nodeOptionsOf(env: Env = process.env): string | undefined {
  return env.NODE_OPTIONS;
}

export function loadConfig(env: Env = process.env, flags: ConfigFlags = {}, defaults: ConfigDefaults = {}): Config {
  const problems: string[] = [];
  const pick: Pick = (flag, name) => {
    if (flag !== undefined && flag !== "") return String(flag);
    const value = env[name];
    return value === undefined || value === "" ? undefined : value;
  };

  // The order of the calls is the order of the problems reported.
  const listen = parseListenSettings(pick, flags, problems);
  const storage = parseStorageSettings(pick, flags, problems);
  const server = parseServerSettings(pick, flags, defaults.logLevel, problems);
  const rateLimits = parseRateLimitSettings(pick, problems);
  const trustProxy = parseTrustProxySetting(pick, problems);
  const oauth = parseOAuthSettings(pick, problems);
  const watchlistLimits = parseWatchlistLimits(pick, problems);
  const market = parseMarketSettings(pick, problems);
  const demo = parseDemoSettings(pick, problems);
  const readCache = parseReadCacheSettings(pick, problems);
  const audit = parseAuditSettings(pick, problems);
  const clubs = parseClubProgramme(pick, problems);
  const priceAlerts = parsePriceAlertSettings(pick, problems);
  const copyTrading = parseCopyTradingSettings(pick, problems);
  const people = parsePeopleSettings(pick, problems);
  const signIn = parseSignInSettings(pick, problems);
  const { production, ...secrets } = parseSecretsSettings(pick, problems);
  const marketHours = parseMarketHoursSettings(pick, production, problems);
  const metrics = parseMetricsSettings(pick, problems);
  const realtime = parseRealtimeSettings(pick, problems);
  const media = parseMediaSettings(pick, problems);
  const sandbox = parseSandboxSettings(pick, production, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    market,
    marketHours,
    demo,
    watchlistLimits,
    oauth,
    rateLimits,
    trustProxy,
    readCache,
    audit,
    clubs,
    priceAlerts,
    copyTrading,
    people,
    signIn,
    production,
    secrets,
    metrics,
    realtime,
    media,
    sandbox,
    port: listen.port,
    host: listen.host,
    database: storage.database,
    redisUrl: storage.redisUrl,
    redisNamespace: storage.redisNamespace,
    logLevel: server.logLevel,
    scopePrefix: server.scopePrefix,
    bodyLimit: server.bodyLimit,
    authCacheTtlMs: server.authCacheTtlMs,
    corsOrigins: server.corsOrigins,
    seed: server.seed,
  };
}
