import { requireUser } from "../../../core/access.js";
import type { Executor } from "../../../infra/db/executor.js";
import type { Ctx } from "../../context.js";
import type { SearchItem, SearchQuery } from "../people.schemas.js";
import { fullNameOf, WEEK_MS, weeksSince } from "../people.view.js";
import { PEOPLE_READ } from "../privacy/privacy.js";
import { hasHiddenRow, nextRegistrationAfter, searchTotal, statsToken } from "./people-search.repository.js";
import type { SearchAnswer } from "./search-cache.js";
import { searchPage } from "./search-page.js";

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
  // A caller with no blocks whose own row (if any) is public sees what everyone sees: that answer
  // is kept while search's rows are unchanged (decision 0181).
  const shared = blocked.length === 0 && !(await hasHiddenRow(db, actor.userId, q.period));
  if (!shared) return (await answer(db, q, actor.gcid, blocked, now)).answer;
  const token = await statsToken(db);
  if (token === undefined) return (await answer(db, q, actor.gcid, blocked, now)).answer;
  const key = queryKey(q);
  const at = now.getTime();
  const kept = ctx.peopleSearches.get(key, token, at);
  if (kept) return kept;
  const fresh = await answer(db, q, actor.gcid, blocked, now);
  ctx.peopleSearches.keep(key, token, fresh.answer, at, await validUntil(db, q, fresh.registrations, now));
  return fresh.answer;
}

/** A query's key: its parameters in a fixed order. */
function queryKey(q: SearchQuery): string {
  const entries = Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(entries);
}

/**
 * Until when (clock ms) an answer computed at `now` stays the answer: the first moment an item's
 * weeks since registration ticks over, or, with `weeksSinceRegistrationMin`, the moment the next
 * user registered too recently to match comes of age (it may then match).
 */
async function validUntil(db: Executor, q: SearchQuery, registrations: string[], now: Date): Promise<number> {
  const at = now.getTime();
  let until = at + WEEK_MS;
  for (const registeredAt of registrations) {
    const t = new Date(registeredAt).getTime();
    const next = t + (weeksSince(registeredAt, now) + 1) * WEEK_MS;
    if (next < until) until = next;
  }
  if (q.weeksSinceRegistrationMin !== undefined) {
    const registeredBy = new Date(at - q.weeksSinceRegistrationMin * WEEK_MS).toISOString();
    const next = await nextRegistrationAfter(db, q.period, registeredBy);
    if (next !== undefined) until = Math.min(until, new Date(next).getTime() + q.weeksSinceRegistrationMin * WEEK_MS);
  }
  return until;
}

async function answer(
  db: Executor,
  q: SearchQuery,
  me: number,
  blocked: readonly string[],
  now: Date,
): Promise<{ answer: SearchAnswer; registrations: string[] }> {
  const total = await searchTotal(db, q, me, blocked, now).executeTakeFirst();
  const rows = await searchPage(db, q, me, blocked, now, Number(total?.n ?? 0));
  const answer = {
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
  return { answer, registrations: rows.map((r) => r.registeredAt) };
}
