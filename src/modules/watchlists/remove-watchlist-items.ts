import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { type Ctx, transact } from "../context.js";
import { itemsWriteAnswer } from "./present-watchlists.js";
import { keyOf, watchlistsRepository } from "./watchlists.repository.js";
import {
  assertItemsEditable,
  classifyItems,
  dedupe,
  type ItemInput,
  loadOwned,
  WATCHLIST_WRITE_SCOPES,
} from "./watchlists.rules.js";
import type { WatchlistsContainer } from "./watchlists.view.js";

/**
 * Removes items. Removing an item that is not there is a no-op (a retry is harmless); an item
 * that names no instrument or user at all, and matched nothing, is reported in
 * `exception.invalidItems`. Returns null when nothing was invalid.
 */
export async function removeWatchlistItems(
  ctx: Ctx,
  watchlistId: string,
  items: readonly ItemInput[],
): Promise<WatchlistsContainer | null> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  const { invalid } = await classifyItems(ctx, items);
  const unknown = new Set(invalid.map(keyOf));
  const { row, rejected } = await transact(ctx, async (trx) => {
    const list = await loadOwned(trx, actor, watchlistId);
    assertItemsEditable(list);
    const repo = watchlistsRepository(trx);
    const rejected: ItemInput[] = [];
    for (const item of dedupe(items)) {
      // A delisted instrument can still be removed: only an unknown item that matched nothing is invalid.
      const removed = await repo.deleteItem(list.id, item);
      if (removed === 0 && unknown.has(keyOf(item))) rejected.push(item);
    }
    await repo.update(list.id, { updatedAt: isoNow(ctx.clock) });
    return { row: list, rejected };
  });
  if (rejected.length === 0) return null;
  return itemsWriteAnswer(ctx, row, 200, rejected, "do not exist");
}
