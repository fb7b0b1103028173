import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { CamelCasePlugin, Kysely, PostgresDialect, sql } from "kysely";
import type Pg from "pg";
import { type DatabaseTarget, DEFAULT_QUERY_TIMEOUT_MS, inDefaultDataFolder, redactUrl } from "../../config.js";
import type { PoolStats } from "../metrics.js";
import { type BulkWriter, openBulkWriter } from "./bulk-writer.js";
import { FALLBACK_AUTOCHECKPOINT_PAGES, startCheckpointer } from "./checkpointer.js";
import { commitGroup, type TransactionRunner } from "./commit-group.js";
import type { Executor } from "./executor.js";
import type { Database } from "./schema.js";
import { type StatementSource, splitSqliteDialect } from "./sqlite-driver.js";
import { runTransaction } from "./transactions.js";

export type Dialect = "sqlite" | "postgres";

/** An open store: the query builder plus what the rest of the app needs to know about it. */
export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * Runs `work` in a transaction and answers once it has committed. SQLite: transactions asked for
   * together share one commit, each in its own savepoint (group commit, decision 0172). PostgreSQL:
   * one transaction each, run again after a deadlock or serialization failure (decision 0102).
   */
  readonly transaction: TransactionRunner;
  /**
   * Runs a write that needs no transaction of its own (one statement), answering once it is
   * committed. SQLite with group commit: it joins the commit group, so many such writes share one
   * commit instead of one each; otherwise it runs at once on its own (autocommit).
   */
  write<T>(work: (db: Executor) => Promise<T>): Promise<T>;
  /**
   * A second connection in a worker thread for a long bulk write (decision 0180), or undefined where
   * there is none to open (PostgreSQL, whose pool already writes beside the event loop; SQLite in
   * memory). The caller closes it.
   */
  bulkWriter(): BulkWriter | undefined;
  /** Cheap liveness query for /ready. */
  ping(): Promise<void>;
  /** The connection pool's state (PostgreSQL); undefined on SQLite (one connection, no pool). */
  poolStats(): PoolStats | undefined;
  /**
   * A number that changes whenever another connection (another process on the same file: a CLI
   * command) has committed a write, and only then: SQLite's `data_version`. This process's own
   * writes leave it as it is. Undefined where it is not known (PostgreSQL). Synchronous, ~1 µs.
   */
  externalVersion(): number | undefined;
  close(): Promise<void>;
}

/**
 * The store could not be opened: unreachable, refused the login, no such database, not a SQLite
 * file. Its message is one line for the operator (no stack trace, no password).
 */
export class DatabaseUnavailableError extends Error {
  readonly code = "DatabaseUnavailable";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseUnavailableError";
  }
}

/** How long opening waits for PostgreSQL to answer before calling it unreachable. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * How long a query waits for a pooled connection (a free one, or a new one while PostgreSQL is
 * away) before failing as `unavailable` (a 503): a request never waits for the database without
 * bound (docs/decisions/0107).
 */
export const POOL_CONNECT_TIMEOUT_MS = 5_000;

export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  return target.kind === "postgres"
    ? openPostgres(target.url, target.pgEnv ?? {}, target.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS)
    : openSqlite(target.url, target.synchronous ?? "normal", target.groupCommit ?? true);
}

function openSqlite(path: string, synchronous: "normal" | "full", groupCommit: boolean): Db {
  // Only the default ./data is made (npm start on a fresh clone); any other missing folder is an error.
  if (path !== ":memory:" && inDefaultDataFolder(path)) mkdirSync(dirname(path), { recursive: true });
  let native: SqliteDatabase.Database;
  try {
    native = new SqliteDatabase(path);
    // WAL lets readers run beside the writer; a process crash loses nothing committed.
    native.pragma("journal_mode = WAL");
  } catch (error) {
    throw new DatabaseUnavailableError(`Cannot open the SQLite database "${path}": ${messageOf(error)}`, {
      cause: error,
    });
  }
  // NORMAL (the default): in WAL mode a process crash (kill -9) loses nothing committed; a power
  // loss or OS crash may lose the last commits, never corrupt the file. FULL (SQLITE_SYNCHRONOUS
  // =full) syncs the log on every commit, so those survive a power loss too (decision 0107).
  native.pragma(`synchronous = ${synchronous === "full" ? "FULL" : "NORMAL"}`);
  native.pragma("foreign_keys = ON");
  // Statement and savepoint journals (a group commit's savepoint per transaction, decision 0172)
  // in memory: on disk each spilled savepoint opened, wrote and deleted a temporary file.
  native.pragma("temp_store = MEMORY");
  // A CLI command, a running server and the worker threads' connections share the file: a write
  // that finds it locked waits for it (up to 5 s) without blocking the event loop. SQLite's own
  // busy_timeout would wait inside the call, stopping every request meanwhile; the driver retries
  // instead (sqlite-driver.ts, decision 0186).
  native.pragma("busy_timeout = 0");
  // Checkpoints from a worker thread (decision 0184): commits only append to the log, and the copy
  // into the file (with its sync) no longer stops the event loop every 1,000 pages of log.
  const checkpointer = path === ":memory:" || path === "" ? undefined : startCheckpointer(path, synchronous);
  if (checkpointer) native.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const kysely = new Kysely<Database>({
    dialect: splitSqliteDialect(withStatementCache(native), reader(path)),
    plugins: [new CamelCasePlugin()],
  });
  // Group commit (decision 0172): acknowledged only after the shared commit, so as durable as above.
  const group = groupCommit ? commitGroup(kysely) : undefined;
  const dataVersion = native.prepare("pragma data_version").pluck();
  return wrap(kysely, "sqlite", group ?? ((work) => runTransaction(kysely, work)), {
    group,
    externalVersion: () => dataVersion.get() as number,
    beforeClose: () => checkpointer?.close(),
    bulk: path === ":memory:" ? undefined : () => openBulkWriter(path, synchronous),
  });
}

/**
 * A read-only connection on the same file for reads made outside a transaction (decision 0186), or
 * undefined for `:memory:` (a second connection would open another, empty database).
 */
function reader(path: string): StatementSource | undefined {
  if (path === ":memory:" || path === "") return undefined;
  const native = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
  native.pragma("busy_timeout = 5000");
  native.pragma("temp_store = MEMORY");
  return withStatementCache(native);
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a point read.
 * The SQL text of a compiled Kysely query is stable (values are bound), so statements are reused.
 * Bounded, in case a caller builds SQL with unbounded variety (e.g. `in (…)` lists of many lengths).
 */
function withStatementCache(native: SqliteDatabase.Database, limit = 1000): StatementSource {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => native.close(),
    prepare(text: string) {
      // Kysely begins a transaction with a deferred `begin`: it reads under a snapshot and takes the
      // write lock at its first write, which fails at once (SQLITE_BUSY, no waiting possible) when
      // another process (a CLI command, a second server) wrote in between. `begin immediate` takes the
      // lock first, waiting for it (the driver retries), so a transaction's reads are never made stale.
      const sqlText = text === "begin" ? "begin immediate" : text;
      let statement = cache.get(sqlText);
      if (!statement) {
        statement = native.prepare(sqlText);
        if (cache.size >= limit) cache.delete(cache.keys().next().value as string);
        cache.set(sqlText, statement);
      }
      return statement;
    },
  };
}

/**
 * A pg client whose statement that timed out (`query_timeout`) drops its connection. pg rejects the
 * statement but leaves it in flight on the connection, so every later statement there (the
 * transaction's rollback, the next request's queries) would queue behind an answer that may never
 * come. Dropped, the client fails fast and the pool replaces it.
 */
function droppingClient(pg: typeof Pg) {
  return class DroppingClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloaded query signature
    override query(...args: any[]): any {
      // biome-ignore lint/suspicious/noExplicitAny: as above
      const result = (super.query as (...a: any[]) => any)(...args);
      if (result && typeof result.then === "function") {
        return result.catch((error: unknown) => {
          if (error instanceof Error && error.message === "Query read timeout") {
            (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
          }
          throw error;
        });
      }
      return result;
    }
  };
}

/** pg, loaded on the first PostgreSQL store: a SQLite server never holds it (a few MB of heap, 0196). */
const loadPg = async (): Promise<typeof Pg> => (await import("pg")).default;

async function openPostgres(url: string, env: PgEnv, queryTimeoutMs: number): Promise<Db> {
  const pg = await loadPg();
  await probePostgres(pg, url, env);
  const pool = new pg.Pool({
    Client: droppingClient(pg),
    connectionString: url,
    // A hung server or link holds no statement past this (a 503), and its connection is dropped.
    query_timeout: queryTimeoutMs,
    max: 10,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    // A peer that vanished without a word (a cut link) is noticed by TCP, not only by a query.
    keepAlive: true,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  // Nor may a client in use (between two statements of a transaction, say) when PostgreSQL
  // restarts or terminates its backend: pg emits "error" on it, which unheard would crash the
  // process. Its next query fails instead (a 503), and the pool drops it when it is released.
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
  return wrap(kysely, "postgres", (work) => runTransaction(kysely, work), {
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  });
}

function wrap(
  kysely: Kysely<Database>,
  dialect: Dialect,
  transaction: TransactionRunner,
  options: {
    /** SQLite's group commit, which single-statement writes join. */
    group?: TransactionRunner | undefined;
    poolStats?: () => PoolStats | undefined;
    externalVersion?: () => number | undefined;
    /** Run before the connections close (SQLite's checkpointer thread). */
    beforeClose?: () => Promise<void> | undefined;
    /** A second SQLite connection in a worker thread for long bulk writes (decision 0180). */
    bulk?: (() => BulkWriter) | undefined;
  },
): Db {
  const { group, poolStats = () => undefined, externalVersion = () => undefined, beforeClose, bulk } = options;
  let closed = false;
  return {
    kysely,
    dialect,
    transaction,
    write: group ? (work) => group(work) : (work) => work(kysely),
    bulkWriter: () => bulk?.(),
    poolStats,
    externalVersion,
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async close() {
      if (closed) return;
      closed = true;
      await beforeClose?.();
      await kysely.destroy();
    },
  };
}

const messageOf = (error: unknown) =>
  error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);

type PgEnv = NonNullable<DatabaseTarget["pgEnv"]>;

/**
 * Where a PostgreSQL URL points, as `host:port`: what pg would use, with `env` (PGHOST, PGPORT, read
 * by the config module) where the URL leaves them out.
 */
export function postgresAddress(url: string, env: PgEnv): string {
  const parsed = new URL(url);
  const host = decodeURIComponent(parsed.hostname) || parsed.searchParams.get("host") || env.PGHOST || "localhost";
  const port = parsed.port || parsed.searchParams.get("port") || env.PGPORT || "5432";
  if (host.startsWith("/")) return `${host} (socket)`;
  // URL keeps an IPv6 host in brackets; PGHOST does not.
  return `${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

/**
 * One line for the operator on why PostgreSQL could not be used, from the error of a connection
 * attempt: the address, and unreachable / refused the login / no such database / timed out.
 */
export function explainPostgresError(url: string, error: unknown, env: PgEnv = {}): string {
  const at = `PostgreSQL at ${postgresAddress(url, env)}`;
  const e = error as { code?: string; message?: string; errors?: { code?: string }[] };
  const code = e.code ?? e.errors?.find((x) => x.code)?.code;
  const message = redactUrl(messageOf(error));
  switch (code) {
    case "ECONNREFUSED":
      return `${at} is unreachable (connection refused): is the server running, and are the host and port right?`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `${at} is unreachable (the host name is unknown)`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `${at} is unreachable (no route to the host)`;
    case "ETIMEDOUT":
      return `${at} is unreachable (timed out)`;
    case "ECONNRESET":
      return `${at} closed the connection (${message})`;
    case "28P01":
    case "28000":
      return `${at} refused the login: ${message}`;
    case "3D000":
      return `${at} is reachable, but ${message}: create it (createdb) or correct the database name`;
    default:
      if (/timeout/i.test(message)) {
        return `${at} is unreachable (no answer within ${CONNECT_TIMEOUT_MS / 1000} s)`;
      }
      return `${at} cannot be used: ${message}`;
  }
}

/** One connection before the pool: a wrong address or login fails here with a clear line. */
async function probePostgres(pg: typeof Pg, url: string, env: PgEnv): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A server that drops the connection after the answer must not crash the process.
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("select 1");
  } catch (error) {
    throw new DatabaseUnavailableError(explainPostgresError(url, error, env), { cause: error });
  } finally {
    await client.end().catch(() => {});
  }
}
