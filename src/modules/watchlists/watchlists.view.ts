import type { Static } from "typebox";
import type { WatchlistLimits } from "../../config.js";
import type { Instrument } from "../market/find-instruments.js";
import type { WatchlistItemRow, WatchlistRow } from "./watchlists.repository.js";
import type { ItemMarket, PageQuery, Watchlist, WatchlistItem, WatchlistsResponse } from "./watchlists.schemas.js";

/** Wire shapes (upstream's names: `Gcid` with a capital G, `watchlistId`, `itemId`...). */
export const WATCHLIST_TYPES = ["Static", "Dynamic", "RecentlyInvested", "Default"] as const;
export type WatchlistType = (typeof WATCHLIST_TYPES)[number];
export const ITEM_TYPES = ["Instrument", "Person"] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** Wire shapes and paging are the Static types of watchlists.schemas.ts (written once, there). */
export type ItemMarketView = Static<typeof ItemMarket>;
export type WatchlistItemView = Static<typeof WatchlistItem>;
export type WatchlistView = Static<typeof Watchlist>;
export type WatchlistsContainer = Static<typeof WatchlistsResponse>;
export type WatchlistsException = NonNullable<WatchlistsContainer["exception"]>;
export type WatchlistsMeta = WatchlistsContainer["meta"];

/** The instrument's market metadata as upstream puts it on a watchlist item. */
export const toItemMarket = (i: Instrument): ItemMarketView => ({
  id: String(i.instrumentId),
  symbolName: i.symbol,
  displayName: i.displayName,
  assetTypeId: i.assetTypeId,
  assetTypeSubCategoryId: i.assetTypeSubCategoryId,
  exchangeId: i.exchangeId,
  hasExpirationDate: i.hasExpirationDate,
  avatar: { small: i.avatar.small, medium: i.avatar.medium, large: i.avatar.large },
});

export function toItem(row: WatchlistItemRow, instruments: ReadonlyMap<number, Instrument>): WatchlistItemView {
  const instrument = row.itemType === "Instrument" ? instruments.get(row.itemId) : undefined;
  return {
    itemId: row.itemId,
    itemType: row.itemType,
    itemRank: row.itemRank,
    itemAddedReason: row.itemAddedReason,
    itemAddedDate: row.itemAddedDate,
    ...(instrument ? { market: toItemMarket(instrument) } : {}),
  };
}

export function toWatchlist(
  row: WatchlistRow,
  items: WatchlistItemView[],
  totalItems: number,
  relatedAssets: number[] | null,
): WatchlistView {
  return {
    watchlistId: row.id,
    name: row.name,
    Gcid: row.gcid,
    watchlistType: row.watchlistType as WatchlistType,
    totalItems,
    isDefault: row.builtin !== null,
    isUserSelectedDefault: row.isUserSelectedDefault === 1,
    watchlistRank: row.watchlistRank,
    dynamicUrl: row.dynamicUrl,
    items,
    relatedAssets,
    isPublic: row.isPublic === 1,
  };
}

export type Page = Static<typeof PageQuery>;

export const DEFAULT_PAGE: Page = { pageNumber: 0, itemsPerPage: 100 };

export function container(
  status: number,
  watchlists: WatchlistView[],
  page: Page,
  limits: WatchlistLimits,
  exception?: WatchlistsException,
): WatchlistsContainer {
  return {
    status,
    watchlists,
    ...(exception ? { exception } : {}),
    meta: {
      pageNumber: page.pageNumber,
      itemsPerPage: page.itemsPerPage,
      maxItemsInWatchlistLimit: limits.maxItemsPerWatchlist,
      maxWatchlistsLimit: limits.maxWatchlists,
    },
    isSucceeded: true,
  };
}
