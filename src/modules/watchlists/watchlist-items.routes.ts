import { type Access, api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { NoContent } from "../../http/schemas.js";
import { type Deps, withActor } from "../context.js";
import { addWatchlistItems, createDefaultWatchlistWithItems } from "./add-watchlist-items.js";
import { removeWatchlistItems } from "./remove-watchlist-items.js";
import { updateWatchlistItems } from "./update-watchlist-items.js";
import { WATCHLIST_WRITE_SCOPES } from "./watchlists.rules.js";
import {
  type ItemRequest,
  ItemsBody,
  WatchlistConflict,
  WatchlistNotFound,
  WatchlistParams,
  WatchlistsResponse,
} from "./watchlists.schemas.js";

// Writes spend the default pool plus the writes pool (src/http/rate-limit.ts).
const WRITE: Access = { scopes: WATCHLIST_WRITE_SCOPES };
const TAGS = ["Watchlists"];
/** The item list is the whole body on the wire. */
const ITEMS_BODY = { items: "body" };

/** Item bodies bind case-insensitively, as upstream's do (`ItemID` = `itemId`). */
const toItems = (body: ItemRequest[]) =>
  body.map((i) => ({
    itemId: i.itemId,
    itemType: i.itemType,
    itemRank: i.itemRank,
    itemAddedReason: i.itemAddedReason,
  }));

/** The writes of a watchlist's items: add, update (rank, reason), remove; the default watchlist with items. */
export function registerWatchlistItemRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;

  app.route({
    method: "POST",
    url: "/api/v1/watchlists/default-watchlist/selected-items",
    ...api(
      WRITE,
      {
        operationId: "createDefaultWatchlistWithSelectedItems",
        tags: TAGS,
        summary: "Create the default watchlist with selected items",
        description:
          "Creates the builtin Default watchlist if missing and adds these items to it; unknown items are listed " +
          "in `exception.invalidItems`, items already there are left as they are.",
        body: ItemsBody,
        response: { 201: WatchlistsResponse },
      },
      prefix,
      ITEMS_BODY,
    ),
    handler: async (request, reply) => {
      const result = await createDefaultWatchlistWithItems(withActor(deps, request.actor), toItems(request.body));
      return reply.status(201).send(result);
    },
  });

  app.route({
    method: "POST",
    url: "/api/v1/watchlists/:watchlistId/items",
    ...api(
      WRITE,
      {
        operationId: "addItemsToWatchlist",
        tags: TAGS,
        summary: "Add items to a watchlist",
        description:
          "Adds the items; unknown instruments (or users) are listed in `exception.invalidItems` while the rest " +
          "are added; an item already there is neither duplicated nor an error. 422 beyond " +
          "`meta.maxItemsInWatchlistLimit`; 409 on a Dynamic or RecentlyInvested watchlist.",
        params: WatchlistParams,
        body: ItemsBody,
        response: { 201: WatchlistsResponse, 404: WatchlistNotFound, 409: WatchlistConflict },
      },
      prefix,
      ITEMS_BODY,
    ),
    handler: async (request, reply) => {
      const result = await addWatchlistItems(
        withActor(deps, request.actor),
        request.params.watchlistId,
        toItems(request.body),
      );
      return reply.status(201).send(result);
    },
  });

  app.route({
    method: "PUT",
    url: "/api/v1/watchlists/:watchlistId/items",
    ...api(
      WRITE,
      {
        operationId: "updateItemsInWatchlist",
        tags: TAGS,
        summary: "Update items in a watchlist",
        description:
          "Changes `itemRank` (and `itemAddedReason` when given) of items in the watchlist. 204 when every item " +
          "was applied; 200 with the watchlist and `exception.invalidItems` when some are not in it.",
        params: WatchlistParams,
        body: ItemsBody,
        response: { 200: WatchlistsResponse, 204: NoContent, 404: WatchlistNotFound, 409: WatchlistConflict },
      },
      prefix,
      ITEMS_BODY,
    ),
    handler: async (request, reply) => {
      const result = await updateWatchlistItems(
        withActor(deps, request.actor),
        request.params.watchlistId,
        toItems(request.body),
      );
      return result ? reply.status(200).send(result) : reply.status(204).send(null);
    },
  });

  app.route({
    method: "DELETE",
    url: "/api/v1/watchlists/:watchlistId/items",
    ...api(
      WRITE,
      {
        operationId: "removeItemsFromWatchlist",
        tags: TAGS,
        summary: "Remove items from a watchlist",
        description:
          "Removes the items; one that is not there is a no-op. 204 normally; 200 with the watchlist and " +
          "`exception.invalidItems` when some items name no instrument or user at all.",
        params: WatchlistParams,
        body: ItemsBody,
        response: { 200: WatchlistsResponse, 204: NoContent, 404: WatchlistNotFound, 409: WatchlistConflict },
      },
      prefix,
      ITEMS_BODY,
    ),
    handler: async (request, reply) => {
      const result = await removeWatchlistItems(
        withActor(deps, request.actor),
        request.params.watchlistId,
        toItems(request.body),
      );
      return result ? reply.status(200).send(result) : reply.status(204).send(null);
    },
  });
}
