import { requireUser } from "../../../core/access.js";
import type { Ctx } from "../../context.js";
import { listInstruments } from "../../market/find-instruments.js";
import { INSTRUMENT_PROFILES } from "../../market/reference-data/reference-data.js";
import { listFollowees } from "../../social/graph/list-followees.js";
import { listHoldings } from "../../trading/list-holdings.js";
import { WATCHLIST_READ_SCOPES } from "../watchlists.rules.js";
import { watchedRepository } from "./watched.repository.js";

/** Points per followed user holding an instrument, and for sharing a sub-category with one of the caller's. */
export const FOLLOWED_HOLDER_POINTS = 2;
export const SIMILAR_POINTS = 1;

/**
 * Up to `count` instruments for the caller (decision 0137), best first. The caller's own
 * instruments (on any of their watchlists or in an open position) are never recommended. Each
 * other instrument scores 2 points per user the caller follows who holds it, plus 1 when it shares
 * a sub-category (stocks: a sector) with one of the caller's own; only scores above 0 count. Ties:
 * more followed holders, larger market cap, smaller id. Empty when nothing scores (the route's 204).
 */
export async function recommendInstruments(ctx: Ctx, count: number): Promise<number[]> {
  const actor = requireUser(ctx.actor, WATCHLIST_READ_SCOPES);
  const followees = await listFollowees(ctx, actor.userId);
  const holdings = await listHoldings(ctx, [actor.userId, ...followees]);
  const watched = await watchedRepository(ctx.db.kysely).instrumentIdsOf(actor.userId);
  const own = new Set([...watched, ...(holdings.get(actor.userId) ?? [])]);
  const holders = new Map<number, number>();
  for (const followee of followees) {
    for (const id of holdings.get(followee) ?? []) holders.set(id, (holders.get(id) ?? 0) + 1);
  }
  const catalog = await listInstruments(ctx);
  const ownCategories = new Set(catalog.filter((i) => own.has(i.instrumentId)).map((i) => i.assetTypeSubCategoryId));
  const cap = (id: number) => INSTRUMENT_PROFILES[id]?.marketCap ?? -1;
  return catalog
    .filter((i) => !own.has(i.instrumentId))
    .map((i) => {
      const followed = holders.get(i.instrumentId) ?? 0;
      const similar = ownCategories.has(i.assetTypeSubCategoryId) ? SIMILAR_POINTS : 0;
      return { id: i.instrumentId, followed, score: FOLLOWED_HOLDER_POINTS * followed + similar };
    })
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || b.followed - a.followed || cap(b.id) - cap(a.id) || a.id - b.id)
    .slice(0, count)
    .map((c) => c.id);
}
