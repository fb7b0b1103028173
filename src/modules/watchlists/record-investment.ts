import { isoNow } from "../../core/clock.js";
import { type Deps, transact } from "../context.js";
import { getUserProfiles } from "../identity/user-profiles.js";
import { ensureBuiltinWatchlists } from "./ensure-builtin-watchlists.js";
import { watchlistsRepository } from "./watchlists.repository.js";

export const INVESTED_REASON = "Invested";

export interface Investment {
  userId: string;
  instrumentId: number;
  occurredAt?: string;
}

/**
 * The RecentlyInvested watchlist follows the positions a user opens: the instrument goes to
 * the top (inserted, or moved when already there), and the list keeps the newest
 * `maxItemsPerWatchlist`. Called for each PositionOpened event, so it is on the order path
 * (docs/decisions/0049): one statement when the instrument is in the list already, else an
 * upsert and a trim in one transaction. The ranks shown (0 = newest) are
 * computed on read.
 */
export async function recordInvestment(deps: Deps, investment: Investment): Promise<void> {
  const item = {
    itemType: "Instrument",
    itemId: investment.instrumentId,
    itemAddedReason: INVESTED_REASON,
    itemAddedDate: investment.occurredAt ?? isoNow(deps.clock),
  };
  // Usually the instrument is there already: one statement moves it, and the size is unchanged.
  // On SQLite it shares the commit of the writes around it (group commit, decision 0172).
  const moved = await deps.db.write((db) =>
    watchlistsRepository(db).moveToTop(investment.userId, "RecentlyInvested", item),
  );
  if (moved) return;
  const max = deps.config.watchlistLimits.maxItemsPerWatchlist;
  const write = () =>
    transact(deps, async (trx) => {
      const repo = watchlistsRepository(trx);
      const listId = await repo.putOnTop(investment.userId, "RecentlyInvested", item);
      if (listId !== undefined) await repo.keepFirstItems(listId, max);
      return listId !== undefined;
    });
  if (await write()) return;
  // The user's first position: the builtin watchlists do not exist yet.
  const user = (await getUserProfiles(deps, [investment.userId])).get(investment.userId);
  if (!user) return; // the user was deleted since: nothing to follow
  await ensureBuiltinWatchlists(deps, { userId: user.userId, gcid: user.gcid });
  await write();
}
