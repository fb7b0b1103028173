import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { type Ctx, transact } from "../context.js";
import { loadOwned, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";
import { watchlistsRepository } from "./watchlists.repository.js";

/** Sets the display rank; ranks are sort keys, other watchlists keep theirs. */
export async function changeWatchlistRank(ctx: Ctx, watchlistId: string, newRank: number): Promise<void> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  await transact(ctx, async (trx) => {
    await loadOwned(trx, actor, watchlistId);
    await watchlistsRepository(trx).update(watchlistId, { watchlistRank: newRank, updatedAt: isoNow(ctx.clock) });
  });
}
