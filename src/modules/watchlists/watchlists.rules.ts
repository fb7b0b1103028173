import type { UserActor } from "../../core/actor.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import type { Executor } from "../../infra/db/executor.js";
import type { Deps } from "../context.js";
import { resolveUserRefs } from "../identity/user-profiles.js";
import { findInstruments, type Instrument } from "../market/find-instruments.js";
import { type ItemKey, keyOf, type WatchlistRow, watchlistsRepository } from "./watchlists.repository.js";
import type { ItemType, WatchlistsException } from "./watchlists.view.js";

/**
 * Reads admit the watchlist scopes and the account scopes (a key pair is bound to demo or real
 * and to read or write); writes admit the write variants. See docs/decisions/0060-watchlist-scopes.md.
 */
export const WATCHLIST_READ_SCOPES = [
  "watchlist:read",
  "watchlist:write",
  "demo:read",
  "demo:write",
  "real:read",
  "real:write",
] as const;
export const WATCHLIST_WRITE_SCOPES = ["watchlist:write", "demo:write", "real:write"] as const;

export const DEFAULT_ITEM_REASON = "Manual";

/** A watchlist's name, trimmed. The schema bounds its length; it cannot say "not only spaces". */
export function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw invalid("name", "must not be empty or only spaces");
  return trimmed;
}

/** The caller's watchlist, or 404 (another user's watchlist is not revealed to exist). */
export async function loadOwned(db: Executor, actor: UserActor, watchlistId: string): Promise<WatchlistRow> {
  const row = await watchlistsRepository(db).findById(watchlistId);
  if (!row || row.userId !== actor.userId) throw notFound(`Watchlist ${watchlistId}`);
  return row;
}

/** Static and Default watchlists hold items a user edits; the others are computed. */
export function assertItemsEditable(row: WatchlistRow): void {
  if (row.watchlistType === "Dynamic") {
    throw new AppError("Conflict", "A Dynamic watchlist's items come from its dynamicUrl; they cannot be edited");
  }
  if (row.watchlistType === "RecentlyInvested") {
    throw new AppError("Conflict", "The RecentlyInvested watchlist follows your positions; it cannot be edited");
  }
}

export interface ItemInput {
  itemId: number;
  itemType: ItemType;
  itemRank?: number | undefined;
  itemAddedReason?: string | undefined;
}

export interface ClassifiedItems {
  /** Known items, each once (the first occurrence in the request wins). */
  valid: ItemInput[];
  /** Items naming no instrument or user, each once. */
  invalid: ItemInput[];
}

export function dedupe(items: readonly ItemInput[]): ItemInput[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = keyOf(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Splits items into known and unknown: instruments through the market catalog, persons by
 * gcid through identity. Runs outside any transaction (it reads through other modules).
 */
export async function classifyItems(deps: Deps, items: readonly ItemInput[]): Promise<ClassifiedItems> {
  const unique = dedupe(items);
  const instrumentIds = unique.filter((i) => i.itemType === "Instrument").map((i) => i.itemId);
  const personIds = unique.filter((i) => i.itemType === "Person").map((i) => String(i.itemId));
  const [instruments, people] = await Promise.all([
    findInstruments(deps, instrumentIds),
    personIds.length ? resolveUserRefs(deps, personIds) : Promise.resolve(new Map()),
  ]);
  const known = (item: ItemInput) =>
    item.itemType === "Instrument"
      ? instruments.has(item.itemId)
      : people.get(String(item.itemId))?.gcid === item.itemId;
  return { valid: unique.filter(known), invalid: unique.filter((i) => !known(i)) };
}

export function invalidItemsException(invalid: readonly ItemKey[], what: string): WatchlistsException | undefined {
  if (invalid.length === 0) return undefined;
  const ids = invalid.map((i) => String(i.itemId));
  return {
    invalidItems: ids,
    reason: "InvalidItems",
    message: `${ids.length} item(s) ${what}: ${invalid.map((i) => `${i.itemType} ${i.itemId}`).join(", ")}`,
  };
}

export async function instrumentsOf(deps: Deps, ids: readonly number[]): Promise<Map<number, Instrument>> {
  return ids.length ? findInstruments(deps, ids) : new Map();
}

export function assertItemsLimit(deps: Deps, current: number, adding: number): void {
  const max = deps.config.watchlistLimits.maxItemsPerWatchlist;
  if (current + adding > max) {
    throw invalid(
      "items",
      `would make ${current + adding} items; a watchlist holds at most ${max} (it has ${current})`,
    );
  }
}
