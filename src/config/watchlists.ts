/** Watchlist limits: WATCHLIST_MAX_WATCHLISTS and WATCHLIST_MAX_ITEMS. */

import type { Pick } from "./shared.js";

export interface WatchlistLimits {
  /** How many watchlists of their own (builtin ones excluded) a user may have. */
  maxWatchlists: number;
  maxItemsPerWatchlist: number;
}

export function parseWatchlistLimits(pick: Pick, problems: string[]): WatchlistLimits {
  const watchlistLimits = { maxWatchlists: 10, maxItemsPerWatchlist: 1000 };
  for (const [name, key, max] of [
    ["WATCHLIST_MAX_WATCHLISTS", "maxWatchlists", 1000],
    ["WATCHLIST_MAX_ITEMS", "maxItemsPerWatchlist", 100_000],
  ] as const) {
    const text = pick(undefined, name);
    if (text === undefined) continue;
    if (/^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= max) watchlistLimits[key] = Number(text);
    else problems.push(`${name} must be a whole number from 1 to ${max} (got "${text}")`);
  }
  return watchlistLimits;
}
