import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { type Ctx, transact } from "../context.js";
import { watchlistsRepository } from "./watchlists.repository.js";
import { loadOwned, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";

/**
 * Moves the watchlist to `newRank`: the others at that rank or after it move one place down,
 * so it is shown exactly there (and a large rank, like upstream's example 500, puts it last).
 */
export async function changeWatchlistRank(ctx: Ctx, watchlistId: string, newRank: number): Promise<void> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  await transact(ctx, async (trx) => {
    const repo = watchlistsRepository(trx);
    await repo.lockOwner(actor.userId);
    await loadOwned(trx, actor, watchlistId);
    await repo.shiftRanksFrom(actor.userId, newRank, watchlistId);
    await repo.update(watchlistId, { watchlistRank: newRank, updatedAt: isoNow(ctx.clock) });
  });
}
