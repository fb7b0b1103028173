import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { type Ctx, transact } from "../context.js";
import { itemsWriteAnswer } from "./present-watchlists.js";
import { watchlistsRepository } from "./watchlists.repository.js";
import { assertItemsEditable, dedupe, type ItemInput, loadOwned, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";
import type { WatchlistsContainer } from "./watchlists.view.js";

/**
 * Changes the rank (and, when given, the added reason) of items already in the watchlist. A
 * rank is a position: the item is shown there, the items from there on move down one.
 * Items that are not in it are reported in `exception.invalidItems`; the rest are updated.
 * Returns null when every item was applied.
 */
export async function updateWatchlistItems(
  ctx: Ctx,
  watchlistId: string,
  items: readonly ItemInput[],
): Promise<WatchlistsContainer | null> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  const { row, missing } = await transact(ctx, async (trx) => {
    const list = await loadOwned(trx, actor, watchlistId);
    assertItemsEditable(list);
    const repo = watchlistsRepository(trx);
    const missing: ItemInput[] = [];
    const now = isoNow(ctx.clock);
    for (const item of dedupe(items)) {
      const changes = {
        ...(item.itemRank !== undefined ? { itemRank: item.itemRank } : {}),
        ...(item.itemAddedReason?.trim() ? { itemAddedReason: item.itemAddedReason.trim() } : {}),
      };
      // Only items in the watchlist can be updated; an item with nothing to change still counts.
      if ((await repo.existingKeys(list.id, [item])).length === 0) {
        missing.push(item);
        continue;
      }
      // A new rank is a position: the items from there on move down one to make room.
      if (item.itemRank !== undefined) await repo.shiftItemRanksFrom(list.id, item.itemRank, item);
      if (Object.keys(changes).length > 0) await repo.updateItem(list.id, item, changes);
    }
    await repo.update(list.id, { updatedAt: now });
    return { row: list, missing };
  });
  if (missing.length === 0) return null;
  return itemsWriteAnswer(ctx, row, 200, missing, "are not in this watchlist and were not updated");
}
