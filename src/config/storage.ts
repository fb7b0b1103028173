/**
 * Database and Redis settings: DATABASE_URL (--database), DATABASE_QUERY_TIMEOUT_MS,
 * SQLITE_SYNCHRONOUS, SQLITE_GROUP_COMMIT, REDIS_URL (--redis-url), REDIS_NAMESPACE.
 */

import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type Pick, redactUrl } from "./shared.js";

export interface DatabaseTarget {
  kind: "sqlite" | "postgres";
  /** A file path (or `:memory:`) for SQLite, a connection URL for PostgreSQL. */
  url: string;
  /** PGHOST / PGPORT, which the PostgreSQL driver uses where the URL leaves them out. */
  pgEnv?: { PGHOST?: string | undefined; PGPORT?: string | undefined };
  /**
   * SQLITE_SYNCHRONOUS: `normal` (default) loses nothing on a process crash but may lose the last
   * commits on a power loss or an OS crash; `full` syncs the write-ahead log on every commit, so
   * a committed order survives a power loss too, at a cost measured in docs/decisions/0107.
   */
  synchronous?: SqliteSynchronous;
  /**
   * SQLITE_GROUP_COMMIT: `on` (default) writes the transactions asked for together in one commit,
   * each in its own savepoint, and answers each after that commit (decision 0172); `off` commits
   * each transaction on its own (the comparison the orders benchmark makes).
   */
  groupCommit?: boolean;
  /**
   * DATABASE_QUERY_TIMEOUT_MS (PostgreSQL): how long one statement may wait for PostgreSQL's answer
   * before it fails (a 503) and its connection is dropped: a hung server or link holds no request
   * past it (docs/decisions/0107). It bounds every statement, migrations and the retention pass
   * included: raise it for a migration on a very large database.
   */
  queryTimeoutMs?: number;
}

/** DATABASE_QUERY_TIMEOUT_MS's default. */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

export type SqliteSynchronous = "normal" | "full";

export interface StorageSettings {
  database: DatabaseTarget;
  redisUrl: string | undefined;
  redisNamespace: string;
}

export const DEFAULT_DATABASE = "./data/social-trading.db";
/** The one folder made when missing: `npm start` on a fresh clone has no ./data yet. */
export const DEFAULT_DATA_FOLDER = dirname(DEFAULT_DATABASE);

/** True for a SQLite file whose folder is the default data folder, which opening may create. */
export const inDefaultDataFolder = (path: string) => resolve(dirname(path)) === resolve(DEFAULT_DATA_FOLDER);

const ACCEPTED_DATABASES =
  "a postgres:// or postgresql:// URL, or the path of a SQLite file (e.g. ./data/social-trading.db)";

export function parseDatabaseTarget(value: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: "postgres", url: value };
  const path = value.startsWith("sqlite:") ? value.slice("sqlite:".length) : value;
  return { kind: "sqlite", url: path };
}

/**
 * What is wrong with a database setting, if anything. `setting` is the name the user wrote
 * (DATABASE_URL or --database). A value that looks like a URL of another scheme (`mysql://…`,
 * a typo such as `postgress://…`) is refused rather than taken for a file name; a SQLite file's
 * folder must exist (a typo in it must not silently become new folders), except ./data.
 */
export function databaseProblem(value: string, setting: string): string | undefined {
  const shown = redactUrl(value);
  const target = parseDatabaseTarget(value);
  if (target.kind === "postgres") {
    try {
      new URL(target.url);
      return undefined;
    } catch {
      return `${setting} is not a valid PostgreSQL URL (got "${shown}"); it must be ${ACCEPTED_DATABASES}`;
    }
  }
  const path = target.url;
  if (path.trim() === "") return `${setting} must be ${ACCEPTED_DATABASES} (got an empty path)`;
  if (path === ":memory:") return undefined;
  // Two letters or more before the colon: a URL scheme, not a Windows drive (C:\…).
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(value)?.[1];
  if (scheme && scheme.toLowerCase() !== "sqlite") {
    const hint = /^(postg|pg)/i.test(scheme)
      ? " (did you mean postgres://?)"
      : value.includes("//")
        ? ""
        : `; a SQLite file whose name has a colon is written ./${value}`;
    return `${setting} must be ${ACCEPTED_DATABASES}, not a "${scheme}:" address (got "${shown}")${hint}`;
  }
  if (/^\/\//.test(path)) {
    return `${setting} must be ${ACCEPTED_DATABASES}; write a SQLite file as sqlite:PATH or just PATH (got "${shown}")`;
  }
  const folder = dirname(path);
  const folderStat = statSync(folder, { throwIfNoEntry: false });
  if (!folderStat && !inDefaultDataFolder(path)) {
    return `${setting} names a SQLite file in the folder "${folder}", which does not exist: create it first, or correct the path (got "${shown}")`;
  }
  if (folderStat && !folderStat.isDirectory()) {
    return `${setting} names a SQLite file in "${folder}", which is not a folder (got "${shown}")`;
  }
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    return `${setting} names the folder "${path}", not a SQLite file in it (e.g. ${path.replace(/\/+$/, "")}/social-trading.db)`;
  }
  return undefined;
}

export function parseStorageSettings(
  pick: Pick,
  flags: { database?: string | undefined; redisUrl?: string | undefined },
  problems: string[],
): StorageSettings {
  const setting = flags.database !== undefined && flags.database !== "" ? "--database" : "DATABASE_URL";
  const databaseText = pick(flags.database, "DATABASE_URL") ?? DEFAULT_DATABASE;
  const databaseIssue = databaseProblem(databaseText, setting);
  if (databaseIssue) problems.push(databaseIssue);
  const parsed = parseDatabaseTarget(databaseText);
  const synchronousText = pick(undefined, "SQLITE_SYNCHRONOUS") ?? "normal";
  const synchronous = synchronousText.toLowerCase();
  if (synchronous !== "normal" && synchronous !== "full") {
    problems.push(
      `SQLITE_SYNCHRONOUS must be normal (safe against a crash of the process) or full (safe against a power loss too) (got "${synchronousText}")`,
    );
  }
  const groupText = pick(undefined, "SQLITE_GROUP_COMMIT") ?? "on";
  const group = groupText.toLowerCase();
  if (group !== "on" && group !== "off") {
    problems.push(
      `SQLITE_GROUP_COMMIT must be on (transactions asked for together share one commit) or off (got "${groupText}")`,
    );
  }
  const timeoutText = pick(undefined, "DATABASE_QUERY_TIMEOUT_MS") ?? String(DEFAULT_QUERY_TIMEOUT_MS);
  const queryTimeoutMs = Number(timeoutText);
  if (!/^\d+$/.test(timeoutText) || queryTimeoutMs < 100 || queryTimeoutMs > 600_000) {
    problems.push(
      `DATABASE_QUERY_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000 (got "${timeoutText}")`,
    );
  }
  const database: DatabaseTarget =
    parsed.kind === "postgres"
      ? {
          ...parsed,
          pgEnv: { PGHOST: pick(undefined, "PGHOST"), PGPORT: pick(undefined, "PGPORT") },
          queryTimeoutMs: Number.isFinite(queryTimeoutMs) ? queryTimeoutMs : DEFAULT_QUERY_TIMEOUT_MS,
        }
      : { ...parsed, synchronous: synchronous === "full" ? "full" : "normal", groupCommit: group !== "off" };

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
