import { isoNow } from "../../core/clock.js";
import { type Deps, transact } from "../context.js";
import { getUserProfiles } from "../identity/user-profiles.js";
import { builtinWatchlist } from "./ensure-builtin-watchlists.js";
import { watchlistsRepository } from "./watchlists.repository.js";

export const INVESTED_REASON = "Invested";

export interface Investment {
  userId: string;
  instrumentId: number;
  occurredAt?: string;
}

/**
 * The RecentlyInvested watchlist follows the positions a user opens: the instrument moves to
 * the top (rank 0), the others move down one, and the list keeps the newest
 * `maxItemsPerWatchlist`. Called for each PositionOpened event.
 */
export async function recordInvestment(deps: Deps, investment: Investment): Promise<void> {
  const user = (await getUserProfiles(deps, [investment.userId])).get(investment.userId);
  if (!user) return; // the user was deleted since: nothing to follow
  const list = await builtinWatchlist(deps, { userId: user.userId, gcid: user.gcid }, "RecentlyInvested");
  const max = deps.config.watchlistLimits.maxItemsPerWatchlist;
  await transact(deps, async (trx) => {
    const repo = watchlistsRepository(trx);
    const key = { itemType: "Instrument", itemId: investment.instrumentId };
    await repo.deleteItem(list.id, key);
    await repo.shiftRanks(list.id);
    await repo.deleteItemsFromRank(list.id, max);
    const at = investment.occurredAt ?? isoNow(deps.clock);
    await repo.insertItems([
      { watchlistId: list.id, ...key, itemRank: 0, itemAddedReason: INVESTED_REASON, itemAddedDate: at },
    ]);
    await repo.update(list.id, { updatedAt: at });
  });
}
