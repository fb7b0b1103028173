import { type CompiledQuery, type Insertable, sql } from "kysely";
import type { BulkStep } from "../../../infra/db/bulk-writer.js";
import type { Executor } from "../../../infra/db/executor.js";
import type { AccountSnapshotsTable, PeopleStatsTable } from "../../../infra/db/schema.js";
import { newStatsToken, snapshotsUpsert } from "../people.repository.js";

/**
 * The SQLite pass's statements (decision 0180): the day's `people_stats` is built into
 * `people_stats_next` (rows appended in key order, no secondary index), its indexes are made at the
 * end in one sort each, and it is swapped in. Every statement runs on the bulk writer's connection.
 * The staging table and its indexes are made from the live table's own definitions in
 * `sqlite_master`, so they follow whatever the migrations made.
 */
const LIVE = "people_stats";
const STAGING = "people_stats_next";

/** Index names alternate between two suffixes, so the next table's indexes never meet the live ones'. */
const nextIndexName = (name: string) => {
  const base = name.replace(/__[ab]$/, "");
  return `${base}${name.endsWith("__a") ? "__b" : "__a"}`;
};

export interface RebuildPlan {
  /** Drops a staging table left by a failed pass and makes an empty one. */
  begin: BulkStep[];
  /** The live table's indexes, remade on the staging table. */
  indexes: BulkStep[];
  /** Reapplies the touched users' privacy and copiers, then puts the staging table in the live one's place. */
  swap: BulkStep[];
}

export async function rebuildPlan(db: Executor): Promise<RebuildPlan> {
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = ${LIVE} and sql is not null`.execute(db);
  const table = rows.find((r) => r.type === "table");
  if (!table?.sql) throw new Error("people_stats is missing");
  const createStaging = table.sql.replace(/^create\s+table\s+("?)people_stats\1(?=\s*\()/i, `CREATE TABLE ${STAGING}`);
  const indexes = rows
    .filter((r) => r.type === "index")
    .map((r) => ({
      sql: r.sql!.replace(
        /^(create\s+(?:unique\s+)?index\s+)("?)\w+\2(\s+on\s+)("?)people_stats\4(?=\s*\()/i,
        `$1${nextIndexName(r.name)}$3${STAGING}`,
      ),
    }));
  return {
    begin: [{ sql: `drop table if exists ${STAGING}` }, { sql: createStaging }],
    indexes,
    swap: [
      {
        sql: `update ${STAGING} set
          listed = coalesce((select 1 - u.is_private from users u where u.id = ${STAGING}.user_id), listed),
          opt_out = coalesce((select s.portfolio_opt_out from people_settings s where s.user_id = ${STAGING}.user_id), 0),
          copiers = coalesce((select c.copiers from people_copiers c where c.user_id = ${STAGING}.user_id), 0)
        where user_id in (select user_id from people_stats_touched)`,
      },
      { sql: `drop table ${LIVE}` },
      { sql: `alter table ${STAGING} rename to ${LIVE}` },
      { sql: "delete from people_stats_touched" },
      // Search's answers kept from the old rows are no longer used (decision 0181).
      {
        sql: `insert into people_stats_version (id, token) values (1, ${newStatsToken()})
          on conflict (id) do update set token = excluded.token`,
      },
    ],
  };
}

const STAGING_COLUMNS = [
  "user_id",
  "period",
  "gain",
  "daily_gain",
  "week_gain",
  "risk_score",
  "max_daily_risk",
  "max_monthly_risk",
  "profitable_months_pct",
  "updated_at",
  "gcid",
  "username_lower",
  "country_code",
  "pi_level",
  "registered_at",
  "listed",
  "opt_out",
] as const;

/** One staging row per statement run: prepared once on the writer, run for every row. */
const STAGING_INSERT = `insert into ${STAGING} (${STAGING_COLUMNS.join(", ")}, copiers) values (${STAGING_COLUMNS.map(() => "?").join(", ")}, coalesce((select copiers from people_copiers where user_id = ?), 0))`;

export function stagingRows(rows: readonly Insertable<PeopleStatsTable>[]): BulkStep {
  return {
    sql: STAGING_INSERT,
    rows: rows.map((r) => [
      r.userId,
      r.period,
      r.gain,
      r.dailyGain,
      r.weekGain,
      r.riskScore,
      r.maxDailyRisk,
      r.maxMonthlyRisk,
      r.profitableMonthsPct,
      r.updatedAt,
      r.gcid,
      r.usernameLower,
      r.countryCode,
      r.piLevel,
      r.registeredAt,
      r.listed,
      r.optOut,
      r.userId,
    ]),
  };
}

/** A compiled Kysely query as a bulk step. */
const step = (q: CompiledQuery): BulkStep => ({ sql: q.sql, rows: [q.parameters] });

/** The day's snapshot rows and the accounts' holdings, as bulk steps (the in-process pass's upserts). */
export function snapshotSteps(
  db: Executor,
  snapshots: readonly Insertable<AccountSnapshotsTable>[],
  userIds: readonly string[],
  holdings: readonly { userId: string; instrumentId: number; pct: number }[],
): BulkStep[] {
  const out: BulkStep[] = [];
  for (let i = 0; i < snapshots.length; i += 200) {
    const q = snapshotsUpsert(db, snapshots.slice(i, i + 200));
    out.push(step(q.compile()));
  }
  if (userIds.length > 0) out.push(step(db.deleteFrom("peopleHoldings").where("userId", "in", userIds).compile()));
  for (let i = 0; i < holdings.length; i += 200)
    out.push(
      step(
        db
          .insertInto("peopleHoldings")
          .values(holdings.slice(i, i + 200))
          .compile(),
      ),
    );
  return out;
}
