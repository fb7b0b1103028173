import { type Access, api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { WATCHLIST_READ_SCOPES } from "../watchlists.rules.js";
import { CuratedListsResponse, RecommendationsParams, RecommendationsResponse } from "./discovery.schemas.js";
import { listCuratedLists } from "./list-curated-lists.js";
import { recommendInstruments } from "./recommend-instruments.js";

/** Curated lists and personal recommendations (decisions 0136, 0137). */
export function registerWatchlistDiscoveryRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const READ: Access = { scopes: WATCHLIST_READ_SCOPES, rateLimit: "watchlist" };
  const tags = ["Watchlists"];

  app.route({
    method: "GET",
    url: "/api/v1/curated-lists",
    ...api(
      READ,
      {
        operationId: "getCuratedLists",
        tags,
        summary: "Curated lists of instruments",
        description: "Themed lists of the catalog's instruments; 204 when the catalog holds none of them.",
        response: { 200: CuratedListsResponse, 204: NoContent },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      const lists = await listCuratedLists(withActor(deps, request.actor));
      if (lists.length === 0) return reply.status(204).send(null);
      return {
        curatedLists: lists.map((l) => ({
          uuid: l.uuid,
          name: l.name,
          description: l.description,
          listImageUrl: l.listImageUrl,
          items: l.instrumentIds.map((instrumentId) => ({ instrumentId })),
        })),
      };
    },
  });

  app.route({
    method: "GET",
    url: "/api/v1/market-recommendations/:itemsCount",
    ...api(
      READ,
      {
        operationId: "getMarketRecommendations",
        tags,
        summary: "Instruments recommended to the caller",
        description:
          "Each instrument the caller neither watches nor holds scores 2 points per followed user holding an open " +
          "position in it, plus 1 when it shares a sub-category with one the caller watches or holds; the best " +
          "`itemsCount` with a score come first (ties: more followed holders, larger market cap, smaller id). " +
          "204 when nothing scores.",
        params: RecommendationsParams,
        response: { 200: RecommendationsResponse, 204: NoContent },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      const ids = await recommendInstruments(withActor(deps, request.actor), request.params.itemsCount);
      if (ids.length === 0) return reply.status(204).send(null);
      return { ResponseType: "Instrument" as const, Recommendations: ids };
    },
  });
}
