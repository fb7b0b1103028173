import { type Access, api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { NoContent } from "../../http/schemas.js";
import { type Deps, withActor } from "../context.js";
import { changeWatchlistRank } from "./change-watchlist-rank.js";
import { createWatchlist } from "./create-watchlist.js";
import { deleteWatchlist } from "./delete-watchlist.js";
import { registerWatchlistDiscoveryRoutes } from "./discovery/discovery.routes.js";
import { getWatchlist } from "./get-watchlist.js";
import { listDefaultWatchlistItems } from "./list-default-items.js";
import { listWatchlists } from "./list-watchlists.js";
import { registerPublicWatchlistRoutes } from "./public-watchlists.routes.js";
import { renameWatchlist } from "./rename-watchlist.js";
import { selectDefaultWatchlist } from "./select-default-watchlist.js";
import { setWatchlistVisibility } from "./set-watchlist-visibility.js";
import { registerWatchlistItemRoutes } from "./watchlist-items.routes.js";
import { WATCHLIST_READ_SCOPES, WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";
import {
  CreateQuery,
  DefaultItemsQuery,
  ListQuery,
  PageQuery,
  RankQuery,
  RenameQuery,
  VisibilityQuery,
  WatchlistConflict,
  WatchlistItems,
  WatchlistNotFound,
  WatchlistParams,
  WatchlistsResponse,
} from "./watchlists.schemas.js";

const READ: Access = { scopes: WATCHLIST_READ_SCOPES, rateLimit: "watchlist" };
// Writes spend the default pool plus the writes pool (src/http/rate-limit.ts).
const WRITE: Access = { scopes: WATCHLIST_WRITE_SCOPES };
const TAGS = ["Watchlists"];

/** The caller's own watchlists: reads and the writes of a whole watchlist (items: watchlist-items.routes.ts). */
export function registerWatchlistRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;

  // --- the spec's reads ---

  app.route({
    method: "GET",
    url: "/api/v1/watchlists",
    ...api(
      READ,
      {
        operationId: "getUserWatchlists",
        tags: TAGS,
        summary: "Get user watchlists",
        description:
          "All watchlists of the caller in display order, each with its first `itemsPerPageForSingle` items. " +
          "With `ensureBuiltinWatchlists` (default true) the builtin Default and RecentlyInvested watchlists are " +
          "created first when missing.",
        querystring: ListQuery,
        response: { 200: WatchlistsResponse },
      },
      prefix,
    ),
    handler: async (request) => listWatchlists(withActor(deps, request.actor), request.query),
  });

  app.route({
    method: "GET",
    url: "/api/v1/watchlists/default-watchlists/items",
    ...api(
      READ,
      {
        operationId: "getDefaultWatchlistItems",
        tags: TAGS,
        summary: "Get default watchlist items",
        description:
          "Items of the caller's default watchlists (the selected default first, then the builtin ones), each " +
          "item once, at most min(`itemsLimit`, `itemsPerPage`). A bare array.",
        querystring: DefaultItemsQuery,
        response: { 200: WatchlistItems },
      },
      prefix,
    ),
    handler: async (request) => listDefaultWatchlistItems(withActor(deps, request.actor), request.query),
  });

  app.route({
    method: "GET",
    url: "/api/v1/watchlists/:watchlistId",
    ...api(
      READ,
      {
        operationId: "getSingleWatchlist",
        tags: TAGS,
        summary: "Get a single watchlist",
        description: "One of the caller's watchlists with one page of its items, in a container.",
        params: WatchlistParams,
        querystring: PageQuery,
        response: { 200: WatchlistsResponse, 404: WatchlistNotFound },
      },
      prefix,
    ),
    handler: async (request) => getWatchlist(withActor(deps, request.actor), request.params.watchlistId, request.query),
  });

  // --- writes, on upstream's paths ---

  createRoute(app, deps, "/api/v1/watchlists", { operationId: "createANewWatchlist", asDefault: false });
  createRoute(app, deps, "/api/v1/watchlists/newasdefault-watchlist", {
    operationId: "createWatchlistAndSetAsDefault",
    asDefault: true,
  });

  app.route({
    method: "PUT",
    url: "/api/v1/watchlists/:watchlistId",
    ...api(
      WRITE,
      {
        operationId: "renameWatchlist",
        tags: TAGS,
        summary: "Rename a watchlist",
        params: WatchlistParams,
        querystring: RenameQuery,
        response: { 204: NoContent, 404: WatchlistNotFound },
      },
      prefix,
      { name: "querystring/newName" },
    ),
    handler: async (request, reply) => {
      await renameWatchlist(withActor(deps, request.actor), request.params.watchlistId, request.query.newName);
      return reply.status(204).send(null);
    },
  });

  app.route({
    method: "DELETE",
    url: "/api/v1/watchlists/:watchlistId",
    ...api(
      WRITE,
      {
        operationId: "deleteWatchlist",
        tags: TAGS,
        summary: "Delete a watchlist",
        description: "Deletes one of the caller's watchlists and its items. The builtin ones cannot be deleted (409).",
        params: WatchlistParams,
        response: { 204: NoContent, 404: WatchlistNotFound, 409: WatchlistConflict },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      await deleteWatchlist(withActor(deps, request.actor), request.params.watchlistId);
      return reply.status(204).send(null);
    },
  });

  app.route({
    method: "PUT",
    url: "/api/v1/watchlists/rank/:watchlistId",
    ...api(
      WRITE,
      {
        operationId: "changeWatchlistRank",
        tags: TAGS,
        summary: "Change a watchlist's rank",
        description: "Sets `watchlistRank`, the ascending display-order key; other watchlists keep theirs.",
        params: WatchlistParams,
        querystring: RankQuery,
        response: { 204: NoContent, 404: WatchlistNotFound },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      await changeWatchlistRank(withActor(deps, request.actor), request.params.watchlistId, request.query.newRank);
      return reply.status(204).send(null);
    },
  });

  app.route({
    method: "PUT",
    url: "/api/v1/watchlists/setUserSelectedUserDefault/:watchlistId",
    ...api(
      WRITE,
      {
        operationId: "setSpecificWatchlistUserSDefault",
        tags: TAGS,
        summary: "Set a watchlist as the user's default",
        description: "Makes this watchlist the caller's selected default (and no other); answers with it.",
        params: WatchlistParams,
        response: { 200: WatchlistsResponse, 404: WatchlistNotFound },
      },
      prefix,
    ),
    handler: async (request) => selectDefaultWatchlist(withActor(deps, request.actor), request.params.watchlistId),
  });

  app.route({
    method: "PUT",
    url: "/api/v1/watchlists/:watchlistId/visibility",
    ...api(
      WRITE,
      {
        operationId: "setWatchlistVisibility",
        tags: TAGS,
        summary: "Publish or hide a watchlist (extension)",
        description:
          "Not in upstream: `isPublic=true` publishes the watchlist (other users read it through the public " +
          "operations), `isPublic=false` hides it again. Watchlists are private when created.",
        params: WatchlistParams,
        querystring: VisibilityQuery,
        response: { 204: NoContent, 404: WatchlistNotFound },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      await setWatchlistVisibility(withActor(deps, request.actor), request.params.watchlistId, request.query.isPublic);
      return reply.status(204).send(null);
    },
  });

  registerPublicWatchlistRoutes(app, deps);
  registerWatchlistItemRoutes(app, deps);
  registerWatchlistDiscoveryRoutes(app, deps);
}

/** A new watchlist; the twin operation also makes it the caller's selected default. */
function createRoute(app: App, deps: Deps, url: string, op: { operationId: string; asDefault: boolean }): void {
  const { asDefault } = op;
  app.route({
    method: "POST",
    url,
    ...api(
      WRITE,
      {
        operationId: op.operationId,
        tags: TAGS,
        summary: asDefault ? "Create a watchlist and set it as default" : "Create a new watchlist",
        description:
          "Creates a Static watchlist, or a Dynamic one whose items are the matches of `dynamicQuery` computed on " +
          `each read${asDefault ? ", and makes it the caller's selected default" : ""}. ` +
          "422 beyond the per-user limit (`meta.maxWatchlistsLimit`).",
        querystring: CreateQuery,
        response: { 201: WatchlistsResponse },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request, reply) => {
      const result = await createWatchlist(withActor(deps, request.actor), { ...request.query, asDefault });
      return reply.status(201).send(result);
    },
  });
}
