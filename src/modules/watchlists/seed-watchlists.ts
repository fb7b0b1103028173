import type { UserActor } from "../../core/actor.js";
import { type Deps, withActor } from "../context.js";
import { addWatchlistItems, createDefaultWatchlistWithItems } from "./add-watchlist-items.js";
import { createWatchlist } from "./create-watchlist.js";
import { ensureBuiltinWatchlists } from "./ensure-builtin-watchlists.js";

interface SeedList {
  name: string;
  isPublic?: boolean;
  /** Static items (instrument ids), or a dynamic query. */
  instruments?: number[];
  dynamicQuery?: string;
}

/** The demo world's watchlists, by username (instrument ids of the seeded catalog). */
export const SEED_WATCHLISTS: Record<string, { defaultItems: number[]; lists: SeedList[] }> = {
  demo: {
    defaultItems: [1001, 1002, 100000, 1],
    lists: [
      { name: "Tech giants", isPublic: true, instruments: [1001, 1003, 1007, 1005, 1006] },
      { name: "All crypto", dynamicQuery: "assetType=Crypto" },
    ],
  },
  alice: {
    defaultItems: [1010, 1013],
    lists: [{ name: "Dividend picks", isPublic: true, instruments: [1010, 1013, 1009, 1012] }],
  },
  bob: {
    defaultItems: [17, 18],
    lists: [
      { name: "Commodities", isPublic: true, instruments: [17, 18] },
      { name: "Watching quietly", instruments: [1014, 1015] },
    ],
  },
};

/**
 * Gives a freshly seeded user their watchlists, through the same use cases a client calls
 * (acting as that user), so the seed obeys every rule the API does.
 */
export async function seedWatchlists(
  deps: Deps,
  user: { userId: string; gcid: number; username: string },
): Promise<number> {
  const plan = SEED_WATCHLISTS[user.username];
  if (!plan) return 0;
  const actor: UserActor = {
    kind: "user",
    userId: user.userId,
    gcid: user.gcid,
    via: "key-pair",
    credentialId: "seed",
    scopes: ["watchlist:write"],
    environment: "demo",
  };
  const ctx = withActor(deps, actor);
  await ensureBuiltinWatchlists(deps, actor);
  await createDefaultWatchlistWithItems(
    ctx,
    plan.defaultItems.map((itemId) => ({ itemId, itemType: "Instrument" })),
  );
  for (const list of plan.lists) {
    const created = await createWatchlist(ctx, {
      name: list.name,
      type: list.dynamicQuery ? "Dynamic" : "Static",
      dynamicQuery: list.dynamicQuery,
      isPublic: list.isPublic,
    });
    const id = created.watchlists[0]?.watchlistId;
    if (id && list.instruments?.length) {
      await addWatchlistItems(
        ctx,
        id,
        list.instruments.map((itemId) => ({ itemId, itemType: "Instrument" })),
      );
    }
  }
  return plan.lists.length + 1;
}
