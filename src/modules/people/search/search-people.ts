import { requireUser } from "../../../core/access.js";
import type { Ctx } from "../../context.js";
import type { SearchItem, SearchQuery } from "../people.schemas.js";
import { fullNameOf, weeksSince } from "../people.view.js";
import { PEOPLE_READ } from "../privacy/privacy.js";
import { searchQueries } from "./people-search.repository.js";

/**
 * Upstream's people search over the figures of each account's last snapshot pass (decisions 0140,
 * 0165): only public profiles with recorded history, none across a block with the caller; every
 * upstream filter, a sort (default `-gain`, ties by gcid), pages and the total. Filters, sort and
 * total read `people_stats` alone (the user's columns are copied there), walking the sort's index;
 * only the page's rows are joined to their names.
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
  const queries = searchQueries(db, q, actor.gcid, blocked, now);
  const total = await queries.total.executeTakeFirst();
  const rows = await queries.rows.execute();
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
      weeksSinceRegistration: weeksSince(r.registeredAt, now),
      countryId: r.countryCode,
      ...(r.pct !== null && r.pct !== undefined ? { instrumentPct: Number(r.pct) } : {}),
    })),
  };
}
