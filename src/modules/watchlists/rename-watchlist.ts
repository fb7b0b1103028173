import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { type Ctx, transact } from "../context.js";
import { watchlistsRepository } from "./watchlists.repository.js";
import { loadOwned, validName, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";

/** Rename (builtin watchlists too: only their type marks them). */
export async function renameWatchlist(ctx: Ctx, watchlistId: string, newName: string): Promise<void> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  const name = validName(newName);
  await transact(ctx, async (trx) => {
    await loadOwned(trx, actor, watchlistId);
    await watchlistsRepository(trx).update(watchlistId, { name, updatedAt: isoNow(ctx.clock) });
  });
}
