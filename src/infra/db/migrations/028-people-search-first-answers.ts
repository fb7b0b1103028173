import { type Kysely, sql } from "kysely";
import type { Dialect } from "../database.js";

/**
 * People search's first answer, with no kept answer (docs/decisions/0188):
 * - every sort column gets its index `(period, column desc, gcid, listed)`; the ones 0165 left out
 *   (daily and week gain, risk score, monthly risk, profitable months) are added. An ascending sort
 *   walks the same index one value at a time (search/value-walk.ts);
 * - the country index carries every filter column after its key, so a total counts the period's
 *   rows from that index alone, whatever the filters;
 * - `(period, user_id, listed, gcid)`: an instrument's holders are counted from their user ids
 *   without reading the table (the primary key's index lacks the privacy flag).
 * On SQLite the snapshot pass (0180) rebuilds these from their definitions and suffixes their names
 * (`__a`, `__b`): the country index is found by its table and base name.
 */
const SORTS: readonly (readonly [name: string, column: string])[] = [
  ["daily_gain", "daily_gain"],
  ["week_gain", "week_gain"],
  ["risk_score", "risk_score"],
  ["max_monthly_risk", "max_monthly_risk"],
  ["profitable_months", "profitable_months_pct"],
];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const [name, column] of SORTS)
    await sql`create index ${sql.raw(`people_stats_by_${name}`)} on people_stats (period, ${sql.raw(column)} desc, gcid, listed)`.execute(
      db,
    );
  await sql`create index people_stats_by_user on people_stats (period, user_id, listed, gcid)`.execute(db);
  let country = ["people_stats_by_country"];
  if (dialect === "sqlite") {
    const { rows } = await sql<{ name: string }>`select name from sqlite_master
      where type = 'index' and tbl_name = 'people_stats' and name like 'people_stats_by_country%'`.execute(db);
    country = rows.map((r) => r.name);
  }
  for (const name of country) await sql`drop index ${sql.raw(name)}`.execute(db);
  await sql`create index people_stats_by_country on people_stats (period, country_code, pi_level, listed, gcid,
    opt_out, gain, max_daily_risk, max_monthly_risk, registered_at)`.execute(db);
}
