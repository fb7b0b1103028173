/**
 * The only reader of process.env. Config is parsed once at boot, validated with one clear
 * message per bad value, and passed down explicitly.
 */
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
  logLevel: LogLevel;
  scopePrefix: string;
  /** Largest accepted request body in bytes; larger bodies get 413. */
  bodyLimit: number;
  seed: SeedMode;
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

export function loadConfig(env: Env = process.env, flags: ConfigFlags = {}): Config {
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

  const logLevel = (pick(flags.logLevel, "LOG_LEVEL") ?? "info").toLowerCase();
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${logLevel}")`);
  }

  const scopePrefix = pick(undefined, "SCOPE_PREFIX") ?? "service-public";
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(scopePrefix)) {
    problems.push(`SCOPE_PREFIX must be letters, digits, '.', '_' or '-' (got "${scopePrefix}")`);
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

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host,
    database,
    redisUrl,
    logLevel: logLevel as LogLevel,
    scopePrefix,
    bodyLimit,
    seed: seed as SeedMode,
  };
}

/** Never print a password that sits inside a connection URL. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, "//$1:***@");
}
