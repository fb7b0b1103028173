import { sql } from "kysely";
import { requireUser } from "../../../core/access.js";
import type { Ctx } from "../../context.js";
import type { SearchItem, SearchQuery, SearchSort } from "../people.schemas.js";
import { fullNameOf, weeksSince } from "../people.view.js";
import { PEOPLE_READ } from "../privacy/privacy.js";

const WEEK_MS = 7 * 86_400_000;

/** Sort fields → columns; weeksSinceRegistration sorts by registration time, the other way round. */
const SORT_COLUMNS = {
  gain: "s.gain",
  dailyGain: "s.dailyGain",
  thisWeekGain: "s.weekGain",
  riskScore: "s.riskScore",
  maxDailyRiskScore: "s.maxDailyRisk",
  maxMonthlyRiskScore: "s.maxMonthlyRisk",
  copiers: "s.copiers",
  profitableMonthsPct: "s.profitableMonthsPct",
  weeksSinceRegistration: "u.createdAt",
  userName: "u.usernameLower",
} as const satisfies Record<SearchSort, string>;

/**
 * Upstream's people search over the figures of each account's last snapshot pass (decision 0140):
 * only public profiles with recorded history, none across a block with the caller; every upstream
 * filter, a sort (default `-gain`, ties by gcid), pages and the total.
 */
export async function searchPeople(ctx: Ctx, q: SearchQuery): Promise<{ totalItems: number; items: SearchItem[] }> {
  const actor = requireUser(ctx.actor, PEOPLE_READ);
  const now = ctx.clock.now();
  const db = ctx.db.kysely;
  // Filters no account here can meet: every account is a registered user's demo account, none is blocked.
  if (q.isTestAccount === true || q.blocked === true) return { totalItems: 0, items: [] };
  // Users across a block with the caller, either way: few, so listed rather than joined per row.
  const blocks = await db
    .selectFrom("userBlocks")
    .select(["blockerId", "blockedId"])
    .where((eb) => eb.or([eb("blockerId", "=", actor.userId), eb("blockedId", "=", actor.userId)]))
    .execute();
  const blocked = blocks.map((b) => (b.blockerId === actor.userId ? b.blockedId : b.blockerId));
  let base = db
    .selectFrom("peopleStats as s")
    .innerJoin("users as u", "u.id", "s.userId")
    .leftJoin("peopleSettings as ps", "ps.userId", "s.userId")
    .where("s.period", "=", q.period)
    .where((eb) => eb.or([eb("u.isPrivate", "=", 0), eb("u.id", "=", actor.userId)]));
  if (blocked.length > 0) base = base.where("s.userId", "not in", blocked);
  if (q.gainMax !== undefined) base = base.where("s.gain", "<=", q.gainMax);
  if (q.gainMin !== undefined) base = base.where("s.gain", ">=", q.gainMin);
  if (q.maxDailyRiskScoreMin !== undefined) base = base.where("s.maxDailyRisk", ">=", q.maxDailyRiskScoreMin);
  if (q.maxDailyRiskScoreMax !== undefined) base = base.where("s.maxDailyRisk", "<=", q.maxDailyRiskScoreMax);
  if (q.maxMonthlyRiskScoreMin !== undefined) base = base.where("s.maxMonthlyRisk", ">=", q.maxMonthlyRiskScoreMin);
  if (q.maxMonthlyRiskScoreMax !== undefined) base = base.where("s.maxMonthlyRisk", "<=", q.maxMonthlyRiskScoreMax);
  if (q.popularInvestor !== undefined) base = base.where("u.piLevel", q.popularInvestor ? ">" : "=", 0);
  if (q.countryId !== undefined) base = base.where("u.countryCode", "=", q.countryId);
  if (q.weeksSinceRegistrationMin !== undefined) {
    const registeredBy = new Date(now.getTime() - q.weeksSinceRegistrationMin * WEEK_MS).toISOString();
    base = base.where("u.createdAt", "<=", registeredBy);
  }
  if (q.optIn !== undefined) {
    base = q.optIn
      ? base.where((eb) => eb.or([eb("ps.portfolioOptOut", "is", null), eb("ps.portfolioOptOut", "=", 0)]))
      : base.where("ps.portfolioOptOut", "=", 1);
  }
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
  const withHolding =
    instrument !== undefined && instrument > 0
      ? base.innerJoin("peopleHoldings as h", (j) =>
          j.onRef("h.userId", "=", "s.userId").on("h.instrumentId", "=", instrument),
        )
      : base.leftJoin("peopleHoldings as h", (j) => j.onRef("h.userId", "=", "s.userId").on(sql<boolean>`1 = 0`));
  let filtered = withHolding;
  if (q.instrumentPctMin !== undefined && instrument !== undefined && instrument > 0) {
    filtered = filtered.where("h.pct", ">=", q.instrumentPctMin);
  }
  if (q.instrumentPctMax !== undefined && instrument !== undefined && instrument > 0) {
    filtered = filtered.where("h.pct", "<=", q.instrumentPctMax);
  }

  const total = await filtered.select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirst();
  const sort = q.sort ?? "-gain";
  const descending = sort.startsWith("-");
  const field = (descending ? sort.slice(1) : sort) as SearchSort;
  // Longer since registration = earlier createdAt.
  const columnDescending = field === "weeksSinceRegistration" ? !descending : descending;
  const rows = await filtered
    .select([
      "u.gcid",
      "u.username",
      "u.firstName",
      "u.lastName",
      "u.piLevel",
      "u.countryCode",
      "u.createdAt",
      "s.gain",
      "s.dailyGain",
      "s.weekGain",
      "s.riskScore",
      "s.maxDailyRisk",
      "s.maxMonthlyRisk",
      "s.copiers",
      "s.profitableMonthsPct",
      "ps.copyBlocked",
      "h.pct",
    ])
    .orderBy(SORT_COLUMNS[field], columnDescending ? "desc" : "asc")
    .orderBy("u.gcid", "asc")
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize)
    .execute();
  return {
    totalItems: Number(total?.n ?? 0),
    items: rows.map((r) => ({
      customerId: r.gcid,
      userName: r.username,
      fullName: fullNameOf(r),
      hasAvatar: true,
      isSocialConnected: false,
      isTestAccount: false,
      displayFullName: true,
      bonusOnly: false,
      blocked: false,
      verified: false,
      popularInvestor: r.piLevel > 0,
      isPopularInvestor: r.piLevel > 0,
      copyBlock: r.copyBlocked === 1,
      isFund: false,
      gain: Number(r.gain),
      dailyGain: Number(r.dailyGain),
      thisWeekGain: Number(r.weekGain),
      riskScore: Number(r.riskScore),
      maxDailyRiskScore: Number(r.maxDailyRisk),
      maxMonthlyRiskScore: Number(r.maxMonthlyRisk),
      copiers: Number(r.copiers),
      profitableMonthsPct: Number(r.profitableMonthsPct),
      weeksSinceRegistration: weeksSince(r.createdAt, now),
      countryId: r.countryCode,
      ...(r.pct !== null && r.pct !== undefined ? { instrumentPct: Number(r.pct) } : {}),
    })),
  };
}
