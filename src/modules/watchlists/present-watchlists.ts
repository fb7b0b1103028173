import type { Deps } from "../context.js";
import { type Instrument, listInstruments } from "../market/find-instruments.js";
import { runDynamicQuery } from "./dynamic-query.js";
import {
  type ItemKey,
  type WatchlistItemRow,
  type WatchlistRow,
  watchlistsRepository,
} from "./watchlists.repository.js";
import { instrumentsOf, invalidItemsException } from "./watchlists.rules.js";
import {
  container,
  DEFAULT_PAGE,
  type Page,
  toItem,
  toWatchlist,
  type WatchlistItemView,
  type WatchlistsContainer,
  type WatchlistView,
} from "./watchlists.view.js";

export const DYNAMIC_ITEM_REASON = "Dynamic";
const RELATED_ASSETS_MAX = 10;

interface Loaded {
  row: WatchlistRow;
  /** The requested page of item rows (dynamic ones synthesized). */
  items: WatchlistItemRow[];
  total: number;
  /** Every instrument id in the watchlist (for related assets). */
  allInstrumentIds?: number[];
}

/** A dynamic watchlist's items are the query's matches now, ranked in the query's order. */
function dynamicRows(row: WatchlistRow, found: readonly Instrument[]): WatchlistItemRow[] {
  return found.map((i, rank) => ({
    watchlistId: row.id,
    itemType: "Instrument",
    itemId: i.instrumentId,
    itemRank: rank,
    itemAddedReason: DYNAMIC_ITEM_REASON,
    itemAddedDate: row.createdAt,
  }));
}

/**
 * RecentlyInvested stores a sort key (the newest has the lowest) so that an order moves one row
 * only; its wire ranks are the positions in that order, 0 = newest (docs/decisions/0049).
 */
function renumbered(row: WatchlistRow, items: WatchlistItemRow[], offset: number): WatchlistItemRow[] {
  if (row.watchlistType !== "RecentlyInvested") return items;
  return items.map((item, n) => ({ ...item, itemRank: offset + n }));
}

/** Every item of one watchlist in display order (dynamic ones computed), up to `limit`. */
export async function allItemRows(deps: Deps, row: WatchlistRow, limit: number): Promise<WatchlistItemRow[]> {
  if (row.watchlistType === "Dynamic" && row.dynamicUrl) {
    return dynamicRows(row, await runDynamicQuery(deps, row.dynamicUrl, limit));
  }
  return renumbered(row, await watchlistsRepository(deps.db.kysely).pageItems(row.id, 0, limit), 0);
}

async function load(deps: Deps, row: WatchlistRow, page: Page, withAll: boolean): Promise<Loaded> {
  const offset = page.pageNumber * page.itemsPerPage;
  const repo = watchlistsRepository(deps.db.kysely);
  if (row.watchlistType === "Dynamic" && row.dynamicUrl) {
    const all = dynamicRows(
      row,
      await runDynamicQuery(deps, row.dynamicUrl, deps.config.watchlistLimits.maxItemsPerWatchlist),
    );
    return {
      row,
      items: all.slice(offset, offset + page.itemsPerPage),
      total: all.length,
      allInstrumentIds: all.map((i) => i.itemId),
    };
  }
  const [items, total] = await Promise.all([
    repo.pageItems(row.id, offset, page.itemsPerPage),
    repo.countItems(row.id),
  ]);
  if (!withAll) return { row, items: renumbered(row, items, offset), total };
  const all = await repo.pageItems(row.id, 0, deps.config.watchlistLimits.maxItemsPerWatchlist);
  return {
    row,
    items: renumbered(row, items, offset),
    total,
    allInstrumentIds: all.filter((i) => i.itemType === "Instrument").map((i) => i.itemId),
  };
}

/**
 * Related assets: catalog instruments in the same sub-categories as the watchlist's
 * instruments, not already in it, by id (at most 10). See docs/decisions/0064.
 */
function relatedTo(ids: readonly number[], catalog: readonly Instrument[]): number[] {
  const held = new Set(ids);
  const subCategories = new Set(catalog.filter((i) => held.has(i.instrumentId)).map((i) => i.assetTypeSubCategoryId));
  return catalog
    .filter((i) => subCategories.has(i.assetTypeSubCategoryId) && !held.has(i.instrumentId))
    .map((i) => i.instrumentId)
    .sort((a, b) => a - b)
    .slice(0, RELATED_ASSETS_MAX);
}

/** Builds the wire watchlists: one page of items each, with the instruments' market metadata. */
export async function presentWatchlists(
  deps: Deps,
  rows: readonly WatchlistRow[],
  page: Page,
  options: { relatedAssets?: boolean } = {},
): Promise<WatchlistView[]> {
  const related = options.relatedAssets === true;
  const loaded = await Promise.all(rows.map((row) => load(deps, row, page, related)));
  const ids = loaded.flatMap((l) => l.items.filter((i) => i.itemType === "Instrument").map((i) => i.itemId));
  const [instruments, catalog] = await Promise.all([
    instrumentsOf(deps, [...new Set(ids)]),
    related ? listInstruments(deps) : Promise.resolve([]),
  ]);
  return loaded.map((l) =>
    toWatchlist(
      l.row,
      l.items.map((i) => toItem(i, instruments)),
      l.total,
      related ? relatedTo(l.allInstrumentIds ?? [], catalog) : null,
    ),
  );
}

/**
 * The answer of an item write: the watchlist's first page in a container with `status`, and the
 * items refused, if any, in `exception.invalidItems` (each "`what`").
 */
export async function itemsWriteAnswer(
  deps: Deps,
  row: WatchlistRow,
  status: number,
  refused: readonly ItemKey[],
  what: string,
): Promise<WatchlistsContainer> {
  const views = await presentWatchlists(deps, [row], DEFAULT_PAGE);
  return container(status, views, DEFAULT_PAGE, deps.config.watchlistLimits, invalidItemsException(refused, what));
}

/** Items with market metadata (the default-watchlists read). */
export async function presentItems(deps: Deps, items: readonly WatchlistItemRow[]): Promise<WatchlistItemView[]> {
  const ids = items.filter((i) => i.itemType === "Instrument").map((i) => i.itemId);
  const instruments = await instrumentsOf(deps, [...new Set(ids)]);
  return items.map((i) => toItem(i, instruments));
}
