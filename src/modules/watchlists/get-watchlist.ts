import { requireUser } from "../../core/access.js";
import type { Ctx } from "../context.js";
import { presentWatchlists } from "./present-watchlists.js";
import { loadOwned, WATCHLIST_READ_SCOPES } from "./watchlists.rules.js";
import { container, type Page, type WatchlistsContainer } from "./watchlists.view.js";

/** One of the caller's own watchlists (public or not) with one page of items. */
export async function getWatchlist(ctx: Ctx, watchlistId: string, page: Page): Promise<WatchlistsContainer> {
  const actor = requireUser(ctx.actor, WATCHLIST_READ_SCOPES);
  const row = await loadOwned(ctx.db.kysely, actor, watchlistId);
  const views = await presentWatchlists(ctx, [row], page);
  return container(200, views, page, ctx.config.watchlistLimits);
}
