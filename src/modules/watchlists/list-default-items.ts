import type { Static } from "typebox";
import { requireUser } from "../../core/access.js";
import type { Ctx } from "../context.js";
import { ensureBuiltinWatchlists } from "./ensure-builtin-watchlists.js";
import { allItemRows, presentItems } from "./present-watchlists.js";
import { keyOf, type WatchlistItemRow, watchlistsRepository } from "./watchlists.repository.js";
import { WATCHLIST_READ_SCOPES } from "./watchlists.rules.js";
import type { DefaultItemsQuery } from "./watchlists.schemas.js";
import type { WatchlistItemView } from "./watchlists.view.js";

export type DefaultItemsInput = Static<typeof DefaultItemsQuery>;

/**
 * Items of the caller's default watchlists: the builtin ones (Default, RecentlyInvested) and
 * the user's selected default, in display order, each item once; at most
 * min(itemsLimit, itemsPerPage) of them (docs/decisions/0065).
 */
export async function listDefaultWatchlistItems(ctx: Ctx, input: DefaultItemsInput): Promise<WatchlistItemView[]> {
  const actor = requireUser(ctx.actor, WATCHLIST_READ_SCOPES);
  await ensureBuiltinWatchlists(ctx, actor);
  const limit = Math.min(input.itemsLimit ?? Number.MAX_SAFE_INTEGER, input.itemsPerPage);
  const rows = (await watchlistsRepository(ctx.db.kysely).listForUser(actor.userId)).filter(
    (w) => w.builtin !== null || w.isUserSelectedDefault === 1,
  );
  // The selected default leads: it is the one the user chose to see first.
  rows.sort((a, b) => b.isUserSelectedDefault - a.isUserSelectedDefault);
  const seen = new Set<string>();
  const items: WatchlistItemRow[] = [];
  for (const row of rows) {
    if (items.length >= limit) break;
    for (const item of await allItemRows(ctx, row, ctx.config.watchlistLimits.maxItemsPerWatchlist)) {
      if (items.length >= limit) break;
      if (seen.has(keyOf(item))) continue;
      seen.add(keyOf(item));
      items.push(item);
    }
  }
  return presentItems(ctx, items);
}
