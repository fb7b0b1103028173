import { type CompiledQuery, type Insertable, sql } from "kysely";
import type { BulkStep } from "../../../infra/db/bulk-writer.js";
import type { Executor } from "../../../infra/db/executor.js";
import type { AccountSnapshotsTable, PeopleStatsTable } from "../../../infra/db/schema.js";
import { newStatsToken, snapshotsUpsert } from "../people.repository.js";

/**
 * The SQLite pass's statements (decision 0180): the day's `people_stats` is built into
 * `people_stats_next`, its indexes are made at the end in one sort each, and it is swapped in. Every
 * statement runs on the bulk writer's connection. The staging table and its indexes follow the live
 * table's own definitions in `sqlite_master`, so they follow whatever the migrations made.
 *
 * The table a swap replaces is kept as `people_stats_prev` (decision 0195). The next pass updates it
 * in place rather than building a table from nothing: it drops only the indexes that name a figure
 * (their keys change every day), makes its rows those of the live table (rows the live table lacks
 * deleted, search columns that differ copied), writes each row's figures (a new row all its
 * columns), deletes the rows of accounts it did not write, and makes the dropped indexes again.
 * The indexes on columns a pass never changes (name, registration, copiers, user) keep their entries. Where the kept table's definitions differ from the live one's (a migration changed
 * `people_stats`), it is dropped and the pass builds the table from nothing as before.
 */
const LIVE = "people_stats";
const STAGING = "people_stats_next";
const PREVIOUS = "people_stats_prev";

/** The columns every pass computes anew: an index naming none of them keeps its keys between passes. */
const FIGURES = [
  "gain",
  "daily_gain",
  "week_gain",
  "risk_score",
  "max_daily_risk",
  "max_monthly_risk",
  "profitable_months_pct",
  "updated_at",
] as const;
const NAMES_A_FIGURE = new RegExp(`\\b(${FIGURES.join("|")})\\b`, "i");

/** Index names alternate between two suffixes, so the next table's indexes never meet the live ones'. */
const nextIndexName = (name: string) => {
  const base = name.replace(/__[ab]$/, "");
  return `${base}${name.endsWith("__a") ? "__b" : "__a"}`;
};

const CREATE_TABLE = (table: string) => new RegExp(`^create\\s+table\\s+("?)${table}\\1(?=\\s*\\()`, "i");
const CREATE_INDEX = (table: string) =>
  new RegExp(`^(create\\s+(?:unique\\s+)?index\\s+)("?)\\w+\\2(\\s+on\\s+)("?)${table}\\4(?=\\s*\\()`, "i");

/** An index's definition with its own name and its table's left out: what two tables' indexes are compared by. */
const indexShape = (sqlText: string, table: string) => sqlText.replace(CREATE_INDEX(table), "$1 $3 ");
/** An index's definition on `to`, under `name`. */
const indexOn = (sqlText: string, from: string, to: string, name: string) =>
  sqlText.replace(CREATE_INDEX(from), `$1${name}$3${to}`);

export interface RebuildPlan {
  /** Whether the previous pass's table is updated in place (its indexes on unchanging columns kept). */
  reuses: boolean;
  /** Makes the staging table: the kept table less its figure indexes, or an empty table. */
  begin: BulkStep[];
  /** One batch's search rows written to the staging table. */
  rows(rows: readonly Insertable<PeopleStatsTable>[]): BulkStep[];
  /** Deletes the staging rows this pass did not write (accounts gone, periods no longer made). */
  prune(periods: readonly string[]): BulkStep[];
  /** The indexes the staging table lacks, made in one sort each. */
  indexes: BulkStep[];
  /** Reapplies the touched users' privacy and copiers, then puts the staging table in the live one's place. */
  swap: BulkStep[];
}

interface SchemaRow {
  type: string;
  name: string;
  owner: string;
  sql: string | null;
}

/**
 * Whether the kept table holds about as many rows as the live one. Rows the kept table lacks are
 * inserted at random places in the indexes it keeps, which costs more than a sort once they are
 * many: after the first pass (the kept table is the empty one the migrations made) or a sandbox
 * reset, the table is built anew.
 */
async function closeInSize(db: Executor): Promise<boolean> {
  const { rows } = await sql<{ live: number; kept: number }>`select
    (select count(*) from ${sql.table(LIVE)}) as live, (select count(*) from ${sql.table(PREVIOUS)}) as kept`.execute(
    db,
  );
  const { live, kept } = rows[0]!;
  return Math.abs(Number(live) - Number(kept)) <= Number(live) / 10;
}

export async function rebuildPlan(db: Executor): Promise<RebuildPlan> {
  const { rows } = await sql<SchemaRow>`
    select type, name, tbl_name as owner, sql from sqlite_master
    where tbl_name in (${LIVE}, ${PREVIOUS}) and sql is not null`.execute(db);
  const of = (table: string) => rows.filter((r) => r.owner === table);
  const live = of(LIVE);
  const table = live.find((r) => r.type === "table");
  if (!table?.sql) throw new Error("people_stats is missing");
  const liveIndexes = live.filter((r) => r.type === "index");
  const kept = of(PREVIOUS);
  const keptTable = kept.find((r) => r.type === "table");
  const keptIndexes = kept.filter((r) => r.type === "index");
  const shapes = (list: SchemaRow[], name: string) => list.map((r) => indexShape(r.sql!, name)).sort();
  const sameShape =
    keptTable?.sql !== undefined &&
    keptTable.sql!.replace(CREATE_TABLE(PREVIOUS), "") === table.sql.replace(CREATE_TABLE(LIVE), "") &&
    JSON.stringify(shapes(keptIndexes, PREVIOUS)) === JSON.stringify(shapes(liveIndexes, LIVE));
  const reuses = sameShape && (await closeInSize(db));
  const swap = [
    {
      sql: `update ${STAGING} set
          listed = coalesce((select 1 - u.is_private from users u where u.id = ${STAGING}.user_id), listed),
          opt_out = coalesce((select s.portfolio_opt_out from people_settings s where s.user_id = ${STAGING}.user_id), 0),
          copiers = coalesce((select c.copiers from people_copiers c where c.user_id = ${STAGING}.user_id), 0)
        where user_id in (select user_id from people_stats_touched)`,
    },
    // The live table stays, as the next pass's starting point (decision 0195).
    { sql: `alter table ${LIVE} rename to ${PREVIOUS}` },
    { sql: `alter table ${STAGING} rename to ${LIVE}` },
    { sql: "delete from people_stats_touched" },
    // Search's answers kept from the old rows are no longer used (decision 0181).
    {
      sql: `insert into people_stats_version (id, token) values (1, ${newStatsToken()})
          on conflict (id) do update set token = excluded.token`,
    },
  ];
  if (!reuses) {
    return {
      reuses,
      begin: [
        { sql: `drop table if exists ${STAGING}` },
        { sql: `drop table if exists ${PREVIOUS}` },
        { sql: table.sql.replace(CREATE_TABLE(LIVE), `CREATE TABLE ${STAGING}`) },
      ],
      rows: (stats) => [{ sql: STAGING_INSERT, rows: stats.map(stagingRow) }],
      prune: () => [],
      indexes: liveIndexes.map((r) => ({ sql: indexOn(r.sql!, LIVE, STAGING, nextIndexName(r.name)) })),
      swap,
    };
  }
  // The kept indexes' names already differ from the live ones' (it was the live table before the last swap).
  const figureIndexes = keptIndexes.filter((r) => NAMES_A_FIGURE.test(indexShape(r.sql!, PREVIOUS)));
  return {
    reuses,
    begin: [
      { sql: `drop table if exists ${STAGING}` },
      { sql: `alter table ${PREVIOUS} rename to ${STAGING}` },
      ...figureIndexes.map((r) => ({ sql: `drop index "${r.name}"` })),
      // The kept rows become the live ones as they stand (search's invariant: the live rows are
      // exact): rows the live table lacks go, and the search columns a privacy or copiers change
      // rewrote since the last swap are copied. A row is rewritten only where one differs, so the
      // indexes on those columns are left alone. Later changes are the swap's touched users.
      {
        sql: `delete from ${STAGING} where not exists
          (select 1 from ${LIVE} l where l.period = ${STAGING}.period and l.user_id = ${STAGING}.user_id)`,
      },
      {
        sql: `update ${STAGING} as s set ${KEPT_COLUMNS.map((c) => `${c} = l.${c}`).join(", ")}
          from ${LIVE} as l where l.period = s.period and l.user_id = s.user_id
            and (${KEPT_COLUMNS.map((c) => `s.${c}`).join(", ")}) is not (${KEPT_COLUMNS.map((c) => `l.${c}`).join(", ")})`,
      },
      { sql: "create temp table if not exists people_pass_users (user_id text primary key)" },
      { sql: "delete from temp.people_pass_users" },
    ],
    rows(stats) {
      const params = stats.map(stagingRow);
      const users = [...new Set(stats.map((r) => r.userId))].map((id) => [id]);
      return [
        { sql: STAGING_FIGURES, rows: params },
        { sql: "insert or ignore into temp.people_pass_users (user_id) values (?)", rows: users },
      ];
    },
    prune: (periods) => [
      {
        sql: `delete from ${STAGING} where user_id not in (select user_id from temp.people_pass_users)
          or period not in (${periods.map(() => "?").join(", ")})`,
        rows: [periods],
      },
    ],
    indexes: figureIndexes.map((r) => ({ sql: indexOn(r.sql!, PREVIOUS, STAGING, r.name) })),
    swap,
  };
}

/**
 * A staging row's parameters: the key and the search columns first (the first nine), then the
 * figures, then the user id again (for its copiers).
 */
const STAGING_COLUMNS = [
  "period",
  "user_id",
  "gcid",
  "username_lower",
  "country_code",
  "pi_level",
  "registered_at",
  "listed",
  "opt_out",
  ...FIGURES,
] as const;

const stagingRow = (r: Insertable<PeopleStatsTable>): unknown[] => [
  r.period,
  r.userId,
  r.gcid,
  r.usernameLower,
  r.countryCode,
  r.piLevel,
  r.registeredAt,
  r.listed,
  r.optOut,
  r.gain,
  r.dailyGain,
  r.weekGain,
  r.riskScore,
  r.maxDailyRisk,
  r.maxMonthlyRisk,
  r.profitableMonthsPct,
  r.updatedAt,
  r.userId,
];

/** One staging row per statement run: prepared once on the writer, run for every row. */
const STAGING_INSERT = `insert into ${STAGING} (${STAGING_COLUMNS.join(", ")}, copiers)
  values (${STAGING_COLUMNS.map(() => "?").join(", ")}, coalesce((select copiers from people_copiers where user_id = ?), 0))`;

/** A kept row's figures (its other columns are the live row's); a new row gets every column. */
const STAGING_FIGURES = `${STAGING_INSERT}
  on conflict (period, user_id) do update set ${FIGURES.map((c) => `${c} = excluded.${c}`).join(", ")}`;

/** The columns a pass writes only into a new row (a kept row has the live row's). */
const KEPT_COLUMNS = [...STAGING_COLUMNS.slice(2, 9), "copiers"];

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
