import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { AppError } from "../../core/errors.js";
import { type Ctx, transact } from "../context.js";
import { watchlistsRepository } from "./watchlists.repository.js";
import { loadOwned, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";

/**
 * Deletes one of the user's own watchlists with its items. Builtin ones cannot be deleted
 * (409). When the selected default goes, the builtin Default becomes the selected default.
 */
export async function deleteWatchlist(ctx: Ctx, watchlistId: string): Promise<void> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  await transact(ctx, async (trx) => {
    await watchlistsRepository(trx).lockOwner(actor.userId);
    const row = await loadOwned(trx, actor, watchlistId);
    if (row.builtin !== null) {
      throw new AppError("Conflict", `The builtin ${row.watchlistType} watchlist cannot be deleted`);
    }
    const repo = watchlistsRepository(trx);
    await repo.delete(watchlistId);
    if (row.isUserSelectedDefault === 1) {
      const fallback = await repo.findBuiltin(actor.userId, "Default");
      if (fallback) await repo.selectDefault(actor.userId, fallback.id, isoNow(ctx.clock));
    }
  });
}
