import { isoNow } from "../../core/clock.js";
import { newId } from "../../core/ids.js";
import { type Deps, transact } from "../context.js";
import { type WatchlistRow, watchlistsRepository } from "./watchlists.repository.js";

export interface Owner {
  userId: string;
  gcid: number;
}

/** The builtin watchlists every user has, in their initial display order. */
export const BUILTINS = [
  { builtin: "Default", name: "My Watchlist", rank: 0 },
  { builtin: "RecentlyInvested", name: "Recently Invested", rank: 1 },
] as const;

export type Builtin = (typeof BUILTINS)[number]["builtin"];

/**
 * Creates the builtin watchlists a user lacks. The Default one becomes the user's selected
 * default unless another already is. Idempotent and safe when two requests race (a unique
 * index on (user, builtin) keeps one of each).
 */
export async function ensureBuiltinWatchlists(deps: Deps, owner: Owner): Promise<void> {
  const present = await watchlistsRepository(deps.db.kysely).listForUser(owner.userId);
  const missing = BUILTINS.filter((b) => !present.some((w) => w.builtin === b.builtin));
  if (missing.length === 0) return;
  await transact(deps, async (trx) => {
    const repo = watchlistsRepository(trx);
    const now = isoNow(deps.clock);
    for (const b of missing) {
      const selected = b.builtin === "Default" && !(await repo.hasSelectedDefault(owner.userId));
      const row: WatchlistRow = {
        id: newId(),
        userId: owner.userId,
        gcid: owner.gcid,
        name: b.name,
        watchlistType: b.builtin,
        builtin: b.builtin,
        isUserSelectedDefault: selected ? 1 : 0,
        watchlistRank: b.rank,
        dynamicUrl: null,
        isPublic: 0,
        createdAt: now,
        updatedAt: now,
      };
      await repo.insertBuiltinIfMissing(row);
    }
  });
}

/** The user's builtin watchlist, created first when missing. */
export async function builtinWatchlist(deps: Deps, owner: Owner, builtin: Builtin): Promise<WatchlistRow> {
  const repo = watchlistsRepository(deps.db.kysely);
  const found = await repo.findBuiltin(owner.userId, builtin);
  if (found) return found;
  await ensureBuiltinWatchlists(deps, owner);
  return (await repo.findBuiltin(owner.userId, builtin)) as WatchlistRow;
}
