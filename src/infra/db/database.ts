import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SqliteDatabase from "better-sqlite3";
import {
  CamelCasePlugin,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase as SqliteDialectDatabase,
  sql,
} from "kysely";
import pg from "pg";
import type { DatabaseTarget } from "../../config.js";
import type { Database } from "./schema.js";

export type Dialect = "sqlite" | "postgres";

/** An open store: the query builder plus what the rest of the app needs to know about it. */
export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /** Cheap liveness query for /ready. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  return target.kind === "postgres" ? openPostgres(target.url) : openSqlite(target.url);
}

function openSqlite(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const native = new SqliteDatabase(path);
  // WAL lets readers run beside the writer; a process crash loses nothing committed.
  native.pragma("journal_mode = WAL");
  native.pragma("synchronous = NORMAL");
  native.pragma("foreign_keys = ON");
  // A CLI command and a running server may share the file: wait instead of failing at once.
  native.pragma("busy_timeout = 5000");
  const kysely = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(native) }),
    plugins: [new CamelCasePlugin()],
  });
  return wrap(kysely, "sqlite");
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a point read.
 * The SQL text of a compiled Kysely query is stable (values are bound), so statements are reused.
 * Bounded, in case a caller builds SQL with unbounded variety (e.g. `in (…)` lists of many lengths).
 */
function withStatementCache(native: SqliteDatabase.Database, limit = 1000): SqliteDialectDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => native.close(),
    prepare(sqlText: string) {
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

function openPostgres(url: string): Db {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
  return wrap(kysely, "postgres");
}

function wrap(kysely: Kysely<Database>, dialect: Dialect): Db {
  let closed = false;
  return {
    kysely,
    dialect,
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy();
    },
  };
}
