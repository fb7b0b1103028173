import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { type Ctx, transact } from "../context.js";
import { presentWatchlists } from "./present-watchlists.js";
import { watchlistsRepository } from "./watchlists.repository.js";
import { loadOwned, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";
import { container, DEFAULT_PAGE, type WatchlistsContainer } from "./watchlists.view.js";

/** Makes this watchlist the user's selected default (and no other); answers with it. */
export async function selectDefaultWatchlist(ctx: Ctx, watchlistId: string): Promise<WatchlistsContainer> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  const row = await transact(ctx, async (trx) => {
    await watchlistsRepository(trx).lockOwner(actor.userId);
    await loadOwned(trx, actor, watchlistId);
    await watchlistsRepository(trx).selectDefault(actor.userId, watchlistId, isoNow(ctx.clock));
    return loadOwned(trx, actor, watchlistId);
  });
  return container(200, await presentWatchlists(ctx, [row], DEFAULT_PAGE), DEFAULT_PAGE, ctx.config.watchlistLimits);
}
