/** Server and HTTP settings: listen address, logging, scopes, auth cache, CORS, body limit, seeding. */

import type { Pick } from "./shared.js";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type SeedMode = "auto" | "always" | "never";

const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
const SEED_MODES: readonly SeedMode[] = ["auto", "always", "never"];

export interface ListenSettings {
  port: number;
  host: string;
}

export interface ServerSettings {
  logLevel: LogLevel;
  scopePrefix: string;
  bodyLimit: number;
  authCacheTtlMs: number;
  corsOrigins: "*" | string[];
  seed: SeedMode;
}

/** PORT (--port) and HOST (--host). */
export function parseListenSettings(
  pick: Pick,
  flags: { port?: string | number | undefined; host?: string | undefined },
  problems: string[],
): ListenSettings {
  const portText = pick(flags.port, "PORT") ?? "8080";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 0 || port > 65535) {
    problems.push(`PORT must be an integer from 0 to 65535 (got "${portText}")`);
  }

  const host = pick(flags.host, "HOST") ?? "127.0.0.1";
  return { port, host };
}

/** LOG_LEVEL, SCOPE_PREFIX, AUTH_CACHE_TTL_MS, CORS_ORIGINS, BODY_LIMIT and SEED, in that order. */
export function parseServerSettings(
  pick: Pick,
  flags: { logLevel?: string | undefined; seed?: string | undefined },
  defaultLogLevel: LogLevel | undefined,
  problems: string[],
): ServerSettings {
  const logLevel = (pick(flags.logLevel, "LOG_LEVEL") ?? defaultLogLevel ?? "info").toLowerCase();
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

  return {
    logLevel: logLevel as LogLevel,
    scopePrefix,
    bodyLimit,
    authCacheTtlMs,
    corsOrigins,
    seed: seed as SeedMode,
  };
}
