import { type Access, api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { errorResponse } from "../../http/schemas.js";
import { type Deps, withActor } from "../context.js";
import { getPublicWatchlist, listPublicWatchlists } from "./public-watchlists.js";
import { WATCHLIST_READ_SCOPES } from "./watchlists.rules.js";
import {
  PageQuery,
  PublicListQuery,
  PublicUserParams,
  PublicWatchlistParams,
  Watchlist,
  WatchlistsResponse,
} from "./watchlists.schemas.js";

const READ: Access = { scopes: WATCHLIST_READ_SCOPES, rateLimit: "watchlist" };
const TAGS = ["Watchlists"];

/** Other users' public watchlists (decisions 0061, 0062): read-only, never a private one. */
export function registerPublicWatchlistRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;

  app.route({
    method: "GET",
    url: "/api/v1/watchlists/public/:userId",
    ...api(
      READ,
      {
        operationId: "getUserSPublicWatchlists",
        tags: TAGS,
        summary: "Get a user's public watchlists",
        description:
          "The public watchlists of the user with gcid `userId`. 404 for an unknown or private-profile user.",
        params: PublicUserParams,
        querystring: PublicListQuery,
        response: { 200: WatchlistsResponse, 404: errorResponse(404, "No such user (or a private profile)") },
      },
      prefix,
    ),
    handler: async (request) =>
      listPublicWatchlists(withActor(deps, request.actor), request.params.userId, request.query.itemsPerPageForSingle),
  });

  app.route({
    method: "GET",
    url: "/api/v1/watchlists/public/:userId/:watchlistId",
    ...api(
      READ,
      {
        operationId: "getSinglePublicWatchlist",
        tags: TAGS,
        summary: "Get a single public watchlist",
        description: "One public watchlist of the user, bare (not in a container). A private one is 404.",
        params: PublicWatchlistParams,
        querystring: PageQuery,
        response: { 200: Watchlist, 404: errorResponse(404, "No such public watchlist of this user") },
      },
      prefix,
    ),
    handler: async (request) =>
      getPublicWatchlist(
        withActor(deps, request.actor),
        request.params.userId,
        request.params.watchlistId,
        request.query,
      ),
  });
}
