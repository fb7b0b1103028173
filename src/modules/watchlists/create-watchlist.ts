import type { Static } from "typebox";
import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { invalid } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import { type Ctx, transact } from "../context.js";
import { dynamicUrlOf, parseDynamicQuery } from "./dynamic-query.js";
import { BUILTINS, ensureBuiltinWatchlists } from "./ensure-builtin-watchlists.js";
import { presentWatchlists } from "./present-watchlists.js";
import { type WatchlistRow, watchlistsRepository } from "./watchlists.repository.js";
import { validName, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";
import type { CreateQuery } from "./watchlists.schemas.js";
import { container, DEFAULT_PAGE, type WatchlistsContainer } from "./watchlists.view.js";

export type CreateWatchlistInput = Static<typeof CreateQuery> & {
  /** newasdefault-watchlist: also make it the user's selected default. */
  asDefault?: boolean;
};

/** Creates a Static or Dynamic watchlist at the end of the caller's list. */
export async function createWatchlist(ctx: Ctx, input: CreateWatchlistInput): Promise<WatchlistsContainer> {
  const actor = requireUser(ctx.actor, WATCHLIST_WRITE_SCOPES);
  const name = validName(input.name);
  let dynamicUrl: string | null = null;
  if (input.type === "Dynamic") {
    dynamicUrl = dynamicUrlOf(parseDynamicQuery(input.dynamicQuery ?? ""));
  } else if (input.dynamicQuery !== undefined && input.dynamicQuery.trim() !== "") {
    throw invalid("dynamicQuery", "applies only when {type} is Dynamic");
  }
  const max = ctx.config.watchlistLimits.maxWatchlists;

  // The builtin rows exist before the first own watchlist: they are what lockOwner locks.
  await ensureBuiltinWatchlists(ctx, actor);
  const row = await transact(ctx, async (trx) => {
    const repo = watchlistsRepository(trx);
    await repo.lockOwner(actor.userId);
    const own = await repo.countOwn(actor.userId);
    if (own >= max) {
      throw invalid(
        "name",
        `would name watchlist ${own + 1} of yours; a user may have at most ${max} (builtin ones not counted)`,
      );
    }
    const now = isoNow(ctx.clock);
    const created: WatchlistRow = {
      id: newId(),
      userId: actor.userId,
      gcid: actor.gcid,
      name,
      watchlistType: input.type,
      builtin: null,
      isUserSelectedDefault: 0,
      // Ranks below BUILTINS.length are the builtin ones' even before they exist.
      watchlistRank: Math.max(BUILTINS.length, ((await repo.maxRank(actor.userId)) ?? -1) + 1),
      dynamicUrl,
      isPublic: input.isPublic ? 1 : 0,
      createdAt: now,
      updatedAt: now,
    };
    await repo.insert(created);
    if (input.asDefault) {
      await repo.selectDefault(actor.userId, created.id, now);
      created.isUserSelectedDefault = 1;
    }
    return created;
  });
  const views = await presentWatchlists(ctx, [row], DEFAULT_PAGE);
  return container(201, views, DEFAULT_PAGE, ctx.config.watchlistLimits);
}
