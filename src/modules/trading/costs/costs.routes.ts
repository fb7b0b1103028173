import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { errorResponse } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES } from "../demo-account.js";
import { fromCents } from "../math.js";
import { CostsBody, CostsResponse } from "./costs.schemas.js";
import { type CostsRequest, getCosts } from "./get-costs.js";

export function registerCostsRoutes(app: App, deps: Deps): void {
  app.route({
    method: "POST",
    url: "/api/v2/trading/info/demo/costs",
    ...api(
      { scopes: READ_SCOPES, requestIdRequired: true },
      {
        operationId: "getCostDemo",
        tags: ["Demo Trading Info"],
        summary: "What an order would cost now on the demo account",
        description:
          "Markup, market spread, transaction fee, one night's overnight fee, the weekend's fee and SDRT, in USD, " +
          "for opening (`action: open`, one of `symbol` or `instrumentId`, `leverage` ≥ 1, one of `amount` or " +
          "`units`) or closing (`action: close`, `positionIds` of one instrument). 404 for an unknown instrument " +
          "or a position that is not the caller's open one; every broken rule is a 422 naming the field.",
        body: CostsBody,
        response: { 200: CostsResponse, 404: errorResponse(404, "The instrument or a position was not found") },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) => {
      const r = await getCosts(withActor(deps, request.actor), request.body as CostsRequest);
      return {
        instrumentId: r.instrument.instrumentId,
        symbol: r.instrument.symbol,
        costs: r.costs.map((c) => ({ costType: c.costType, amount: fromCents(c.cents), currency: "USD" })),
        lastUpdated: r.lastUpdated,
      };
    },
  });
}
