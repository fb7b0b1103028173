import { type Kysely, sql } from "kysely";
import type { Dialect } from "../database.js";

/**
 * People and performance (src/modules/people, docs/decisions/0138–0142).
 *
 * - `account_snapshots`: one row per demo account and UTC day (the day's last snapshot stands):
 *   equity, cash, invested, the money put in so far (`deposits_cents`), the day's time-weighted
 *   return, the unit value it compounds into, the daily risk score, and the holdings as JSON.
 * - `people_stats`: per account and search period, the figures search filters and sorts on,
 *   refreshed by each snapshot pass.
 * - `people_holdings`: each account's instruments as a share of its invested money, from its last
 *   snapshot (search's instrument filter).
 * - `people_settings`: a user's choices beside `users.is_private`: portfolio exposure opted out,
 *   copying refused.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`create table account_snapshots (
    user_id text not null references users(id) on delete cascade,
    day text not null,
    equity_cents bigint not null,
    cash_cents bigint not null,
    invested_cents bigint not null,
    deposits_cents bigint not null,
    daily_return double precision not null,
    unit_value double precision not null,
    risk_score integer not null,
    holdings text not null,
    taken_at text not null,
    primary key (user_id, day)
  )`.execute(db);

  await sql`create table people_stats (
    user_id text not null references users(id) on delete cascade,
    period text not null,
    gain double precision not null,
    daily_gain double precision not null,
    week_gain double precision not null,
    risk_score integer not null,
    max_daily_risk integer not null,
    max_monthly_risk integer not null,
    profitable_months_pct double precision not null,
    copiers integer not null default 0,
    updated_at text not null,
    primary key (period, user_id)
  )`.execute(db);
  await db.schema.createIndex("people_stats_gain").on("people_stats").columns(["period", "gain"]).execute();
  await db.schema.createIndex("people_stats_copiers").on("people_stats").columns(["period", "copiers"]).execute();
  await db.schema
    .createIndex("people_stats_daily_risk")
    .on("people_stats")
    .columns(["period", "max_daily_risk", "gain"])
    .execute();
  await db.schema.createIndex("people_stats_user").on("people_stats").column("user_id").execute();

  await sql`create table people_holdings (
    user_id text not null references users(id) on delete cascade,
    instrument_id integer not null,
    pct double precision not null,
    primary key (user_id, instrument_id)
  )`.execute(db);
  await db.schema
    .createIndex("people_holdings_instrument")
    .on("people_holdings")
    .columns(["instrument_id", "pct"])
    .execute();

  await sql`create table people_settings (
    user_id text primary key references users(id) on delete cascade,
    portfolio_opt_out integer not null,
    copy_blocked integer not null,
    updated_at text not null
  )`.execute(db);

  await db.schema.createIndex("users_country").on("users").columns(["country_code", "pi_level"]).execute();
}
