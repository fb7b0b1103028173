import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { type Ctx, transact } from "../context.js";
import { watchlistsRepository } from "./watchlists.repository.js";
import { loadOwned, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";

/** Extension: publish (`true`) or hide (`false`) a watchlist; see docs/decisions/0061. */
export async function setWatchlistVisibility(ctx: Ctx, watchlistId: string, isPublic: boolean): Promise<void> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  await transact(ctx, async (trx) => {
    await loadOwned(trx, actor, watchlistId);
    await watchlistsRepository(trx).update(watchlistId, { isPublic: isPublic ? 1 : 0, updatedAt: isoNow(ctx.clock) });
  });
}
