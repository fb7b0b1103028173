import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import type { Executor } from "../../infra/db/executor.js";
import { type Ctx, transact } from "../context.js";
import { builtinWatchlist } from "./ensure-builtin-watchlists.js";
import { itemsWriteAnswer } from "./present-watchlists.js";
import { keyOf, type WatchlistItemRow, type WatchlistRow, watchlistsRepository } from "./watchlists.repository.js";
import {
  assertItemsEditable,
  assertItemsLimit,
  classifyItems,
  DEFAULT_ITEM_REASON,
  type ItemInput,
  loadOwned,
  WATCHLIST_WRITE_SCOPES,
} from "./watchlists.rules.js";
import type { WatchlistsContainer } from "./watchlists.view.js";

/**
 * Adds items: unknown instruments or users are reported in `exception.invalidItems` while the
 * rest are added; an item already there is left as it was (no duplicate, no error). Items
 * without a rank go to the end, in request order.
 */
async function addItems(
  ctx: Ctx,
  target: (trx: Executor) => Promise<WatchlistRow>,
  items: readonly ItemInput[],
): Promise<WatchlistsContainer> {
  // Other modules are read before the transaction: SQLite has one connection.
  const { valid, invalid } = await classifyItems(ctx, items);
  const row = await transact(ctx, async (trx) => {
    const list = await target(trx);
    assertItemsEditable(list);
    const repo = watchlistsRepository(trx);
    const now = isoNow(ctx.clock);
    // Touching the watchlist row first serializes concurrent adds: the count below is exact.
    await repo.update(list.id, { updatedAt: now });
    const present = new Set((await repo.existingKeys(list.id, valid)).map(keyOf));
    const fresh = valid.filter((i) => !present.has(keyOf(i)));
    assertItemsLimit(ctx, await repo.countItems(list.id), fresh.length);
    const rowOf = (i: ItemInput, itemRank: number): WatchlistItemRow => ({
      watchlistId: list.id,
      itemType: i.itemType,
      itemId: i.itemId,
      itemRank,
      itemAddedReason: i.itemAddedReason?.trim() || DEFAULT_ITEM_REASON,
      itemAddedDate: now,
    });
    // An explicit rank is a position: make room there first, in request order.
    for (const i of fresh.filter((x) => x.itemRank !== undefined)) {
      const placed = rowOf(i, i.itemRank as number);
      await repo.shiftItemRanksFrom(list.id, placed.itemRank, placed);
      await repo.insertItems([placed]);
    }
    // The others go to the end, in request order.
    const next = ((await repo.maxItemRank(list.id)) ?? -1) + 1;
    await repo.insertItems(fresh.filter((x) => x.itemRank === undefined).map((i, n) => rowOf(i, next + n)));
    return list;
  });
  return itemsWriteAnswer(ctx, row, 201, invalid, "do not exist and were not added");
}

export async function addWatchlistItems(
  ctx: Ctx,
  watchlistId: string,
  items: readonly ItemInput[],
): Promise<WatchlistsContainer> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  return addItems(ctx, (trx) => loadOwned(trx, actor, watchlistId), items);
}

/**
 * `default-watchlist/selected-items`: the builtin Default watchlist, created if missing,
 * with these items added (docs/decisions/0065).
 */
export async function createDefaultWatchlistWithItems(
  ctx: Ctx,
  items: readonly ItemInput[],
): Promise<WatchlistsContainer> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  const list = await builtinWatchlist(ctx, actor, "Default");
  return addItems(ctx, (trx) => loadOwned(trx, actor, list.id), items);
}
