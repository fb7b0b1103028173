import { type ExpressionBuilder, sql } from "kysely";
import type { Executor } from "../../../infra/db/executor.js";
import type { Database, PeopleStatsTable } from "../../../infra/db/schema.js";
import type { SearchQuery, SearchSort } from "../people.schemas.js";
import type { AscendingWalk } from "./value-walk.js";

const WEEK_MS = 7 * 86_400_000;

/** Sort fields → people_stats columns; weeksSinceRegistration sorts by registration time, the other way round. */
export const SORT_COLUMNS = {
  gain: "gain",
  dailyGain: "dailyGain",
  thisWeekGain: "weekGain",
  riskScore: "riskScore",
  maxDailyRiskScore: "maxDailyRisk",
  maxMonthlyRiskScore: "maxMonthlyRisk",
  copiers: "copiers",
  profitableMonthsPct: "profitableMonthsPct",
  weeksSinceRegistration: "registeredAt",
  userName: "usernameLower",
} as const satisfies Record<SearchSort, string>;

/** The page's columns from `people_stats` (and the holding's percentage, when filtered by one). */
const PAGE_COLUMNS = [
  "s.userId",
  "s.gcid",
  "s.gain",
  "s.dailyGain",
  "s.weekGain",
  "s.riskScore",
  "s.maxDailyRisk",
  "s.maxMonthlyRisk",
  "s.copiers",
  "s.profitableMonthsPct",
  "s.registeredAt",
  "s.usernameLower",
] as const;

/**
 * A page walks the sort's index when the total says at least one row in this many, up to the
 * page's end, matches: at most this share of the period is walked (0188). Fewer matches are found
 * from the filters' indexes and sorted.
 */
const WALK_RATIO = 50;

/** Sort columns whose index is kept descending (migrations 021, 028): ascending pages walk it by value. */
const DESCENDING_INDEXES = new Set<string>([
  "gain",
  "dailyGain",
  "weekGain",
  "riskScore",
  "maxDailyRisk",
  "maxMonthlyRisk",
  "copiers",
  "profitableMonthsPct",
]);

/**
 * The people search's page (decisions 0165, 0188; its total is `searchTotal`), over `people_stats`
 * alone (the user's filter and sort columns are copied there); only the page's rows are joined to
 * users and settings. `me` (a gcid) sees their own row even when private, checked from the indexes,
 * which carry gcid; `blocked` are left out. An ascending sort of a column indexed descending comes
 * with `ascending`, the walk by value that pages it (value-walk.ts).
 */
export function searchQueries(
  db: Executor,
  q: SearchQuery,
  me: number,
  blocked: readonly string[],
  now: Date,
  knownTotal?: number,
) {
  const sort = q.sort ?? "-gain";
  const descending = sort.startsWith("-");
  const field = (descending ? sort.slice(1) : sort) as SearchSort;
  const column = SORT_COLUMNS[field];
  const instrument = q.instrumentId;
  const held = instrument !== undefined && instrument > 0 ? instrument : undefined;
  const offset = (q.page - 1) * q.pageSize;
  // Few matches (the total, when known, is under WALK_RATIO × the page's end): the filters' indexes
  // find them and they are sorted. Otherwise the page walks the sort's index: filters on other
  // columns are checked per row, not ranged, and an instrument's holding is probed per row (0188).
  const few = knownTotal !== undefined && knownTotal < WALK_RATIO * (offset + q.pageSize);
  const probe = held !== undefined && knownTotal !== undefined && !few;
  const filtered = matching(db, q, me, blocked, now, (c) => !few && c !== column, probe ? "exists" : "join");
  const pct =
    held === undefined
      ? sql<number | null>`null`
      : probe
        ? sql<
            number | null
          >`(select x.pct from people_holdings x where x.user_id = s.user_id and x.instrument_id = ${held})`
        : sql<number | null>`h.pct`;

  // Longer since registration = earlier registration.
  const columnDescending = field === "weeksSinceRegistration" ? !descending : descending;
  const direction = columnDescending ? "desc" : "asc";
  const ref = sql.ref<number>(`s.${column}`);
  const columns = filtered.select([...PAGE_COLUMNS, pct.as("pct")]);
  const page = columns.orderBy(`s.${column}`, direction).orderBy("s.gcid", "asc").limit(q.pageSize).offset(offset);
  // Only the page's rows meet users and settings; the page's order is said again over them.
  const rows = db
    .selectFrom(page.as("p"))
    .innerJoin("users as u", "u.id", "p.userId")
    .leftJoin("peopleSettings as ps", "ps.userId", "p.userId")
    .selectAll("p")
    .select(["u.username", "u.firstName", "u.lastName", "u.piLevel", "u.countryCode", "ps.copyBlocked"])
    .orderBy(`p.${column}`, direction)
    .orderBy("p.gcid", "asc");
  type Row = Awaited<ReturnType<typeof columns.execute>>[number];
  const ascending: AscendingWalk<number, Row> | undefined =
    !few && !columnDescending && DESCENDING_INDEXES.has(column)
      ? {
          async nextValue(after) {
            const row = await db
              .selectFrom("peopleStats as s")
              .select((eb) => eb.fn.min<number>(ref).as("v"))
              .where("s.period", "=", q.period)
              .$if(after !== undefined, (qb) => qb.where(ref, ">", after!))
              .executeTakeFirst();
            return row?.v ?? undefined;
          },
          run: (value, limit) => columns.where(ref, "=", value).orderBy("s.gcid", "asc").limit(limit).execute(),
          rest: (after, limit, skip) =>
            columns
              .$if(after !== undefined, (qb) => qb.where(ref, ">", after!))
              .orderBy(ref, "asc")
              .orderBy("s.gcid", "asc")
              .limit(limit)
              .offset(skip)
              .execute(),
        }
      : undefined;
  return { rows, ascending, offset };
}

/**
 * The search's total (decisions 0165, 0188), counted from an index that holds every column it checks
 * (the country index carries every filter column): the range terms are made opaque so the planner
 * does not pick a range of an index that lacks the others and read the table. Holders are looked up
 * from the holdings' index; "not holding" is all rows less the holders (a holding is unique per
 * user and instrument).
 */
export function searchTotal(db: Executor, q: SearchQuery, me: number, blocked: readonly string[], now: Date) {
  const count = (r: SearchQuery) =>
    matching(db, r, me, blocked, now, () => true, "in").select((eb) => eb.fn.countAll<number | string>().as("n"));
  const instrument = q.instrumentId;
  return instrument !== undefined && instrument < 0
    ? db.selectNoFrom((eb) => [
        eb(
          count({ ...q, instrumentId: undefined }),
          "-",
          count({ ...q, instrumentId: -instrument, instrumentPctMin: undefined, instrumentPctMax: undefined }),
        ).as("n"),
      ])
    : count(q);
}

/** Names and copy block of the page's users (for a page the walk found). */
export function pageNames(db: Executor, userIds: readonly string[]) {
  return db
    .selectFrom("users as u")
    .leftJoin("peopleSettings as ps", "ps.userId", "u.id")
    .select(["u.id", "u.username", "u.firstName", "u.lastName", "u.piLevel", "u.countryCode", "ps.copyBlocked"])
    .where("u.id", "in", userIds)
    .execute();
}

/**
 * The period's rows a search matches: listed (or the caller's own), no block, every filter, and
 * for holders of an instrument the holding: joined (`h`), or the holders looked up from the
 * holdings' index (`in`, for a count), or each row's holding probed (`exists`, for a page that walks
 * the sort's index). The terms on columns `opaque` names are expressions no index serves, so the planner
 * walks the index that carries them (the sort's for a page, the covering country index for a total).
 */
function matching(
  db: Executor,
  q: SearchQuery,
  me: number,
  blocked: readonly string[],
  now: Date,
  opaque: (column: string) => boolean,
  holders: "join" | "in" | "exists" = "join",
) {
  const num = (column: "gain" | "maxDailyRisk" | "maxMonthlyRisk" | "optOut") =>
    opaque(column) ? sql<number>`${sql.ref(`s.${column}`)} + 0` : sql.ref<number>(`s.${column}`);
  let base = db
    .selectFrom("peopleStats as s")
    .where("s.period", "=", q.period)
    .where((eb) => eb.or([eb("s.listed", "=", 1), eb("s.gcid", "=", me)]));
  if (blocked.length > 0) base = base.where("s.userId", "not in", blocked);
  if (q.gainMax !== undefined) base = base.where(num("gain"), "<=", q.gainMax);
  if (q.gainMin !== undefined) base = base.where(num("gain"), ">=", q.gainMin);
  if (q.maxDailyRiskScoreMin !== undefined) base = base.where(num("maxDailyRisk"), ">=", q.maxDailyRiskScoreMin);
  if (q.maxDailyRiskScoreMax !== undefined) base = base.where(num("maxDailyRisk"), "<=", q.maxDailyRiskScoreMax);
  if (q.maxMonthlyRiskScoreMin !== undefined) base = base.where(num("maxMonthlyRisk"), ">=", q.maxMonthlyRiskScoreMin);
  if (q.maxMonthlyRiskScoreMax !== undefined) base = base.where(num("maxMonthlyRisk"), "<=", q.maxMonthlyRiskScoreMax);
  if (q.popularInvestor !== undefined) base = base.where("s.piLevel", q.popularInvestor ? ">" : "=", 0);
  if (q.countryId !== undefined) base = base.where("s.countryCode", "=", q.countryId);
  if (q.weeksSinceRegistrationMin !== undefined) {
    const registeredBy = new Date(now.getTime() - q.weeksSinceRegistrationMin * WEEK_MS).toISOString();
    const registered = opaque("registeredAt")
      ? sql<string>`${sql.ref("s.registeredAt")} || ''`
      : sql.ref<string>("s.registeredAt");
    base = base.where(registered, "<=", registeredBy);
  }
  if (q.optIn !== undefined) base = base.where(num("optOut"), "=", q.optIn ? 0 : 1);
  const instrument = q.instrumentId;
  if (instrument !== undefined && instrument < 0) {
    base = base.where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("peopleHoldings as x")
            .select("x.userId")
            .whereRef("x.userId", "=", "s.userId")
            .where("x.instrumentId", "=", -instrument),
        ),
      ),
    );
  }
  // Holders of an instrument are found from its index; otherwise no join at all (a join that
  // matches nothing still probes the holdings of every row it counts).
  const held = instrument !== undefined && instrument > 0 ? instrument : undefined;
  if (held !== undefined && holders !== "join") {
    const holding = (eb: ExpressionBuilder<Database & { s: PeopleStatsTable }, "s">) =>
      eb
        .selectFrom("peopleHoldings as x")
        .select("x.userId")
        .where("x.instrumentId", "=", held)
        .$if(q.instrumentPctMin !== undefined, (qb) => qb.where("x.pct", ">=", q.instrumentPctMin!))
        .$if(q.instrumentPctMax !== undefined, (qb) => qb.where("x.pct", "<=", q.instrumentPctMax!));
    return holders === "in"
      ? base.where("s.userId", "in", holding)
      : base.where((eb) => eb.exists(holding(eb).whereRef("x.userId", "=", "s.userId")));
  }
  return base
    .$if(held !== undefined, (qb) =>
      qb.innerJoin("peopleHoldings as h", (j) => j.onRef("h.userId", "=", "s.userId").on("h.instrumentId", "=", held!)),
    )
    .$if(held !== undefined && q.instrumentPctMin !== undefined, (qb) =>
      qb.where(sql.ref("h.pct"), ">=", q.instrumentPctMin),
    )
    .$if(held !== undefined && q.instrumentPctMax !== undefined, (qb) =>
      qb.where(sql.ref("h.pct"), "<=", q.instrumentPctMax),
    );
}

/**
 * The token of search's rows (decision 0181): it changes with every write to them. Undefined when
 * there is none (a sandbox reset emptied the table; the next write makes it): answers are then not kept.
 */
export async function statsToken(db: Executor): Promise<string | undefined> {
  const row = await db.selectFrom("peopleStatsVersion").select("token").where("id", "=", 1).executeTakeFirst();
  return row === undefined ? undefined : String(row.token);
}

/** Whether the user has a row of `period` that only they see (a private profile). */
export async function hasHiddenRow(db: Executor, userId: string, period: string): Promise<boolean> {
  const row = await db
    .selectFrom("peopleStats")
    .select("listed")
    .where("period", "=", period)
    .where("userId", "=", userId)
    .executeTakeFirst();
  return row !== undefined && row.listed === 0;
}

/** The earliest registration after `registeredBy` among `period`'s rows (from the registration index). */
export async function nextRegistrationAfter(
  db: Executor,
  period: string,
  registeredBy: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("peopleStats")
    .select("registeredAt")
    .where("period", "=", period)
    .where("registeredAt", ">", registeredBy)
    .orderBy("registeredAt")
    .limit(1)
    .executeTakeFirst();
  return row?.registeredAt;
}
