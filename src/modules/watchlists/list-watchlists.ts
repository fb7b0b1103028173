import type { Static } from "typebox";
import { requireUser } from "../../core/access.js";
import type { Ctx } from "../context.js";
import { ensureBuiltinWatchlists } from "./ensure-builtin-watchlists.js";
import { presentWatchlists } from "./present-watchlists.js";
import { watchlistsRepository } from "./watchlists.repository.js";
import { WATCHLIST_READ_SCOPES } from "./watchlists.rules.js";
import type { ListQuery } from "./watchlists.schemas.js";
import { container, type WatchlistsContainer } from "./watchlists.view.js";

export type ListWatchlistsInput = Static<typeof ListQuery>;

/** The caller's watchlists in display order, each with its first page of items. */
export async function listWatchlists(ctx: Ctx, input: ListWatchlistsInput): Promise<WatchlistsContainer> {
  const actor = requireUser(ctx.actor, WATCHLIST_READ_SCOPES);
  if (input.ensureBuiltinWatchlists) await ensureBuiltinWatchlists(ctx, actor);
  const rows = await watchlistsRepository(ctx.db.kysely).listForUser(actor.userId);
  const page = { pageNumber: 0, itemsPerPage: input.itemsPerPageForSingle };
  const views = await presentWatchlists(ctx, rows, page, { relatedAssets: input.addRelatedAssets });
  return container(200, views, page, ctx.config.watchlistLimits);
}
