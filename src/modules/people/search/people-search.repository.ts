import { sql } from "kysely";
import type { Executor } from "../../../infra/db/executor.js";
import type { SearchQuery, SearchSort } from "../people.schemas.js";

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

/**
 * The people search's two queries (decision 0165): its total and its page, over `people_stats`
 * alone (the user's filter and sort columns are copied there); only the page's rows are joined to
 * users and settings. `me` (a gcid) sees their own row even when private, checked from the indexes,
 * which carry gcid; `blocked` are left out.
 */
export function searchQueries(db: Executor, q: SearchQuery, me: number, blocked: readonly string[], now: Date) {
  let base = db
    .selectFrom("peopleStats as s")
    .where("s.period", "=", q.period)
    .where((eb) => eb.or([eb("s.listed", "=", 1), eb("s.gcid", "=", me)]));
  if (blocked.length > 0) base = base.where("s.userId", "not in", blocked);
  if (q.gainMax !== undefined) base = base.where("s.gain", "<=", q.gainMax);
  if (q.gainMin !== undefined) base = base.where("s.gain", ">=", q.gainMin);
  if (q.maxDailyRiskScoreMin !== undefined) base = base.where("s.maxDailyRisk", ">=", q.maxDailyRiskScoreMin);
  if (q.maxDailyRiskScoreMax !== undefined) base = base.where("s.maxDailyRisk", "<=", q.maxDailyRiskScoreMax);
  if (q.maxMonthlyRiskScoreMin !== undefined) base = base.where("s.maxMonthlyRisk", ">=", q.maxMonthlyRiskScoreMin);
  if (q.maxMonthlyRiskScoreMax !== undefined) base = base.where("s.maxMonthlyRisk", "<=", q.maxMonthlyRiskScoreMax);
  if (q.popularInvestor !== undefined) base = base.where("s.piLevel", q.popularInvestor ? ">" : "=", 0);
  if (q.countryId !== undefined) base = base.where("s.countryCode", "=", q.countryId);
  if (q.weeksSinceRegistrationMin !== undefined) {
    const registeredBy = new Date(now.getTime() - q.weeksSinceRegistrationMin * WEEK_MS).toISOString();
    base = base.where("s.registeredAt", "<=", registeredBy);
  }
  if (q.optIn !== undefined) base = base.where("s.optOut", "=", q.optIn ? 0 : 1);
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
  const filtered = base
    .$if(held !== undefined, (qb) =>
      qb.innerJoin("peopleHoldings as h", (j) => j.onRef("h.userId", "=", "s.userId").on("h.instrumentId", "=", held!)),
    )
    .$if(held !== undefined && q.instrumentPctMin !== undefined, (qb) =>
      qb.where(sql.ref("h.pct"), ">=", q.instrumentPctMin),
    )
    .$if(held !== undefined && q.instrumentPctMax !== undefined, (qb) =>
      qb.where(sql.ref("h.pct"), "<=", q.instrumentPctMax),
    );
  const pct = held === undefined ? sql<number | null>`null` : sql<number | null>`h.pct`;

  const total = filtered.select((eb) => eb.fn.countAll<number | string>().as("n"));
  const sort = q.sort ?? "-gain";
  const descending = sort.startsWith("-");
  const field = (descending ? sort.slice(1) : sort) as SearchSort;
  // Longer since registration = earlier registration.
  const columnDescending = field === "weeksSinceRegistration" ? !descending : descending;
  const column = SORT_COLUMNS[field];
  const direction = columnDescending ? "desc" : "asc";
  const page = filtered
    .select([
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
      pct.as("pct"),
    ])
    .orderBy(`s.${column}`, direction)
    .orderBy("s.gcid", "asc")
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  // Only the page's rows meet users and settings; the page's order is said again over them.
  const rows = db
    .selectFrom(page.as("p"))
    .innerJoin("users as u", "u.id", "p.userId")
    .leftJoin("peopleSettings as ps", "ps.userId", "p.userId")
    .selectAll("p")
    .select(["u.username", "u.firstName", "u.lastName", "u.piLevel", "u.countryCode", "ps.copyBlocked"])
    .orderBy(`p.${column}`, direction)
    .orderBy("p.gcid", "asc");
  return { total, rows };
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
