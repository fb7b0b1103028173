import { type Kysely, sql } from "kysely";
import type { Dialect } from "../database.js";

/**
 * People search answers from `people_stats` alone (docs/decisions/0165): the user's columns it
 * filters and sorts on are copied beside the figures, written with the row and never changed by the
 * daily pass (users' gcid, name, country, PI level and registration are fixed once created; the
 * privacy columns are people's own and are rewritten when the user changes them). A sort has an index
 * the page walks in order (ties by gcid) where the daily pass can afford one, with the privacy flag
 * last so the walk skips private rows without reading the table.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  const columns: [string, string][] = [
    ["gcid", "integer not null default 0"],
    ["username_lower", "text not null default ''"],
    ["country_code", "integer not null default 0"],
    ["pi_level", "integer not null default 0"],
    ["registered_at", "text not null default ''"],
    ["listed", "integer not null default 1"],
    ["opt_out", "integer not null default 0"],
  ];
  for (const [name, type] of columns)
    await sql`alter table people_stats add column ${sql.raw(name)} ${sql.raw(type)}`.execute(db);
  await sql`update people_stats set
    gcid = (select u.gcid from users u where u.id = people_stats.user_id),
    username_lower = (select u.username_lower from users u where u.id = people_stats.user_id),
    country_code = (select u.country_code from users u where u.id = people_stats.user_id),
    pi_level = (select u.pi_level from users u where u.id = people_stats.user_id),
    registered_at = (select u.created_at from users u where u.id = people_stats.user_id),
    listed = (select 1 - u.is_private from users u where u.id = people_stats.user_id),
    opt_out = coalesce((select ps.portfolio_opt_out from people_settings ps where ps.user_id = people_stats.user_id), 0)`.execute(
    db,
  );

  // Replaced by the per-sort indexes below.
  await sql`drop index people_stats_gain`.execute(db);
  await sql`drop index people_stats_copiers`.execute(db);
  await sql`drop index people_stats_daily_risk`.execute(db);
  // Only sorts the daily pass rarely or never rewrites, plus the default: every index of a column the
  // pass sets is rewritten for each changed row (measured, decision 0165). The other sorts (daily
  // and week gain, risk score, monthly risk, profitable months) read the period's rows and keep the top.
  const sorts: [string, string][] = [
    ["gain", "gain desc"],
    ["max_daily_risk", "max_daily_risk desc"],
    ["copiers", "copiers desc"],
    ["registered", "registered_at"],
    ["name", "username_lower"],
  ];
  for (const [name, column] of sorts)
    await sql`create index ${sql.raw(`people_stats_by_${name}`)} on people_stats (period, ${sql.raw(column)}, gcid, listed)`.execute(
      db,
    );
  await sql`create index people_stats_by_country on people_stats (period, country_code, pi_level, listed, gcid)`.execute(
    db,
  );
}
