import { requireUser } from "../../core/access.js";
import { notFound } from "../../core/errors.js";
import type { Ctx } from "../context.js";
import { resolveUserRefs } from "../identity/user-profiles.js";
import { presentWatchlists } from "./present-watchlists.js";
import { watchlistsRepository } from "./watchlists.repository.js";
import { WATCHLIST_READ_SCOPES } from "./watchlists.rules.js";
import { container, type Page, type WatchlistsContainer, type WatchlistView } from "./watchlists.view.js";

/**
 * The owner whose public watchlists may be shown: an unknown user and a user with a private
 * profile are both 404, so the answer never tells them apart (docs/decisions/0062).
 */
async function visibleOwner(ctx: Ctx, gcid: number): Promise<void> {
  const found = (await resolveUserRefs(ctx, [String(gcid)])).get(String(gcid));
  if (!found || found.gcid !== gcid || found.isPrivate) throw notFound(`User ${gcid}`);
}

/** A user's public watchlists, each with its first `itemsPerPageForSingle` items. */
export async function listPublicWatchlists(
  ctx: Ctx,
  gcid: number,
  itemsPerPageForSingle: number,
): Promise<WatchlistsContainer> {
  requireUser(ctx.actor, WATCHLIST_READ_SCOPES);
  await visibleOwner(ctx, gcid);
  const rows = await watchlistsRepository(ctx.db.kysely).listPublicByGcid(gcid);
  const page = { pageNumber: 0, itemsPerPage: itemsPerPageForSingle };
  return container(200, await presentWatchlists(ctx, rows, page), page, ctx.config.watchlistLimits);
}

/** One public watchlist, bare; a private one, or one that is not this user's, is 404. */
export async function getPublicWatchlist(
  ctx: Ctx,
  gcid: number,
  watchlistId: string,
  page: Page,
): Promise<WatchlistView> {
  requireUser(ctx.actor, WATCHLIST_READ_SCOPES);
  await visibleOwner(ctx, gcid);
  const row = await watchlistsRepository(ctx.db.kysely).findById(watchlistId);
  if (!row || row.gcid !== gcid || row.isPublic !== 1) throw notFound(`Public watchlist ${watchlistId}`);
  const [view] = await presentWatchlists(ctx, [row], page);
  return view as WatchlistView;
}
