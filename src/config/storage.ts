/** Database and Redis settings: DATABASE_URL (--database), REDIS_URL (--redis-url), REDIS_NAMESPACE. */

import { type Pick, redactUrl } from "./shared.js";

export interface DatabaseTarget {
  kind: "sqlite" | "postgres";
  /** A file path (or `:memory:`) for SQLite, a connection URL for PostgreSQL. */
  url: string;
}

export interface StorageSettings {
  database: DatabaseTarget;
  redisUrl: string | undefined;
  redisNamespace: string;
}

export const DEFAULT_DATABASE = "./data/social-trading.db";

export function parseDatabaseTarget(value: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: "postgres", url: value };
  const path = value.startsWith("sqlite:") ? value.slice("sqlite:".length) : value;
  return { kind: "sqlite", url: path };
}

export function parseStorageSettings(
  pick: Pick,
  flags: { database?: string | undefined; redisUrl?: string | undefined },
  problems: string[],
): StorageSettings {
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
  return { database, redisUrl, redisNamespace };
}
