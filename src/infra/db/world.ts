import { sql, type Transaction } from "kysely";
import type { Db } from "./database.js";
import type { Database } from "./schema.js";

/**
 * The whole world of a store as rows, for the sandbox's reset and snapshots (decision 0152): the
 * only place that knows the tables' dependency order and each engine's way to empty a table and
 * restart its identity counters.
 */

/** Parents before children; a table of a later migration not listed here comes after these. */
const ORDER = [
  "users",
  "key_pairs",
  "notifications",
  "oauth_clients",
  "oauth_sessions",
  "oauth_grants",
  "oauth_codes",
  "oauth_refresh_tokens",
  "audit_events",
  "sign_in_counters",
  "sign_in_known_addresses",
  "club_memberships",
  "price_alerts",
  "demo_accounts",
  "demo_orders",
  "demo_positions",
  "demo_trades",
  "idempotency_keys",
  "attachments",
  "posts",
  "post_tags",
  "mentions",
  "polls",
  "poll_options",
  "poll_votes",
  "comments",
  "likes",
  "saves",
  "pins",
  "post_follows",
  "user_follows",
  "user_blocks",
  "watchlists",
  "watchlist_items",
];

/**
 * Not the world: the migrations' own tables, the snapshots themselves, the reference catalog,
 * the server's OAuth signing keys and settings (tokens already issued stay verifiable), and the
 * SQLite snapshot pass's working tables (the one it builds, the one the last swap replaced: decisions
 * 0180, 0195), which the next pass makes exact from the world's rows whatever they hold.
 */
const NOT_WORLD = new Set([
  "sandbox_snapshots",
  "instruments",
  "oauth_signing_keys",
  "oauth_settings",
  "people_stats_next",
  "people_stats_prev",
]);

export type WorldRows = Record<string, Record<string, unknown>[]>;

/** The world's tables in dependency order (parents first). */
export async function worldTables(db: Db): Promise<string[]> {
  const names = (await db.kysely.introspection.getTables()).map((t) => t.name);
  const world = names.filter((n) => !NOT_WORLD.has(n) && !n.startsWith("kysely_") && !n.startsWith("sqlite_"));
  const rank = (n: string) => {
    const i = ORDER.indexOf(n);
    return i < 0 ? ORDER.length : i;
  };
  return world.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Every row of every world table (column names as the app names them: the store's CamelCase plugin maps them). */
export async function dumpWorld(db: Db): Promise<WorldRows> {
  const out: WorldRows = {};
  for (const table of await worldTables(db)) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db.kysely);
    out[table] = result.rows;
  }
  return out;
}

/**
 * Empties every world table and restarts the identity counters, then writes `rows` (parents
 * first) and moves each counter past the largest id written; one transaction. Calls `progress`
 * after each step with the rows it wrote.
 */
export async function replaceWorld(
  db: Db,
  rows: WorldRows,
  progress: (step: string, rows: number) => void = () => {},
): Promise<void> {
  const tables = await worldTables(db);
  if (db.dialect === "postgres") {
    await db.kysely.transaction().execute(async (trx) => {
      await sql`truncate ${sql.join(tables.map((t) => sql.table(t)))} restart identity cascade`.execute(trx);
      progress("emptied", 0);
      for (const table of tables) {
        const n = await insertRows(trx, table, rows[table] ?? []);
        if (n > 0) progress(table, n);
      }
      // Result columns come back camel-cased by the plugin. Identity columns and serial ones (a
      // sequence as their default: audit_events' bigserial id).
      const identities = await sql<{ tableName: string; columnName: string }>`
        select table_name, column_name from information_schema.columns
        where table_schema = current_schema() and (is_identity = 'YES' or column_default like 'nextval(%')`.execute(
        trx,
      );
      for (const { tableName: table, columnName: column } of identities.rows) {
        if (!tables.includes(table)) continue;
        await sql`select setval(pg_get_serial_sequence(${table}, ${column}),
          coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1, false)`.execute(trx);
      }
    });
    return;
  }
  await db.kysely.transaction().execute(async (trx) => {
    // Checked at commit: the rows are whole again by then.
    await sql`pragma defer_foreign_keys = on`.execute(trx);
    for (const table of [...tables].reverse()) await sql`delete from ${sql.table(table)}`.execute(trx);
    const hasSequence = await sql`select 1 from sqlite_master where name = 'sqlite_sequence'`.execute(trx);
    if (hasSequence.rows.length > 0) {
      await sql`delete from sqlite_sequence where name in (${sql.join(tables)})`.execute(trx);
    }
    progress("emptied", 0);
    for (const table of tables) {
      const n = await insertRows(trx, table, rows[table] ?? []);
      if (n > 0) progress(table, n);
    }
  });
}

async function insertRows(
  trx: Transaction<Database>,
  table: string,
  rows: readonly Record<string, unknown>[],
): Promise<number> {
  for (const row of rows) {
    const columns = Object.keys(row);
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
      values (${sql.join(columns.map((c) => row[c]))})`.execute(trx);
  }
  return rows.length;
}
