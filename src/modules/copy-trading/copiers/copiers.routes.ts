import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { type Deps, withActor } from "../../context.js";
import { PortfolioCopiers, UsernameParams } from "../../people/people.schemas.js";
import { CACHE, cacheFor, STATS, statsAccess } from "../../people/stats-cache.routes.js";
import { CopiersPublicInfo } from "./copiers.schemas.js";
import { PI_DATA_SCOPES, readMyCopiers } from "./read-my-copiers.js";
import { readPortfolioCopiers } from "./read-portfolio-copiers.js";

/**
 * Upstream's getPortfolioCopiers, a Users Stats read (decision 0109): it lives here, above people,
 * because it counts copies; it answers with the people reads' privacy, envelope and caching.
 */
export function registerCopiersRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;

  app.route({
    method: "GET",
    url: "/api/v2/portfolios/:username/copiers",
    ...api(
      statsAccess,
      {
        operationId: "getPortfolioCopiers",
        tags: STATS,
        summary: "Current copier count and AUM tier of a public portfolio",
        description:
          "Users copying the portfolio now (active or paused copies) and the tier of the money they copy with " +
          `(never the amount). 404 unknown, private or blocked; 403 when the owner opted out. ${CACHE}`,
        params: UsernameParams,
        response: { 200: PortfolioCopiers },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      void reply.header("cache-control", "no-store");
      const { target, body } = await readPortfolioCopiers(withActor(deps, request.actor), request.params.username);
      cacheFor(reply, target);
      return body;
    },
  });

  app.route({
    method: "GET",
    url: "/api/v1/pi-data/copiers",
    ...api(
      { scopes: PI_DATA_SCOPES },
      {
        operationId: "getCopiersPublicInfo",
        tags: ["PI Data"],
        summary: "Get copiers public info",
        description:
          "The users copying you now (active or paused copies), one entry per copy, oldest first, each described " +
          "only in categories: gender, club, country, how long ago and with how much the copy started, age band; " +
          "and the copy's realised P/L and available cash as text (decision 0176).",
        response: { 200: CopiersPublicInfo },
      },
      prefix,
    ),
    handler: async (request) => readMyCopiers(withActor(deps, request.actor)),
  });
}
