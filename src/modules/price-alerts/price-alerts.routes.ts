import { api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { type Deps, withActor } from "../context.js";
import { createAlert } from "./create-alert.js";
import { deleteAlert } from "./delete-alert.js";
import { listAlerts } from "./list-alerts.js";
import {
  AlertParams,
  CreatePriceAlertBody,
  DeletePriceAlertResult,
  PriceAlertCollection,
  PriceAlertMutation,
  UpdatePriceAlertBody,
} from "./price-alerts.schemas.js";
import { PRICE_ALERTS_READ, PRICE_ALERTS_WRITE } from "./price-alerts.view.js";
import { updateAlert } from "./update-alert.js";

const TAGS = ["Price Alerts"];

/** Upstream's price-alerts service wraps its errors: the routes carry its envelope (decision 0121). */
const access = (scopes: typeof PRICE_ALERTS_READ | typeof PRICE_ALERTS_WRITE) =>
  ({ scopes, requestIdRequired: true, serviceErrors: true }) as const;

const FIRES =
  "The alert is set above or below the instrument's bid now and fires once, when the bid reaches the target " +
  "from that side: it then leaves the active list and the owner gets a `PriceAlert` notification.";

export function registerPriceAlertRoutes(app: App, deps: Deps): void {
  app.route({
    method: "GET",
    url: "/api/v1/price-alerts",
    ...api(
      access(PRICE_ALERTS_READ),
      {
        operationId: "getPriceAlerts",
        tags: TAGS,
        summary: "Get the caller's active price alerts",
        response: { 200: PriceAlertCollection },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) => ({ results: await listAlerts(withActor(deps, request.actor)) }),
  });

  app.route({
    method: "POST",
    url: "/api/v1/price-alerts",
    ...api(
      access(PRICE_ALERTS_WRITE),
      {
        operationId: "createAPriceAlert",
        tags: TAGS,
        summary: "Create a price alert",
        description: `${FIRES} At most PRICE_ALERTS_MAX_PER_USER (100) active alerts per user; 404 for an unknown symbol.`,
        body: CreatePriceAlertBody,
        response: { 201: PriceAlertMutation },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request, reply) => {
      const data = await createAlert(withActor(deps, request.actor), request.body);
      return reply.status(201).send({ success: true, data });
    },
  });

  app.route({
    method: "PATCH",
    url: "/api/v1/price-alerts/:alertId",
    ...api(
      access(PRICE_ALERTS_WRITE),
      {
        operationId: "updateAPriceAlert",
        tags: TAGS,
        summary: "Change a price alert's target",
        description: `The alert is set again from the bid now. ${FIRES}`,
        params: AlertParams,
        body: UpdatePriceAlertBody,
        response: { 200: PriceAlertMutation },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) => ({
      success: true,
      data: await updateAlert(withActor(deps, request.actor), request.params.alertId, request.body.targetPrice),
    }),
  });

  app.route({
    method: "DELETE",
    url: "/api/v1/price-alerts/:alertId",
    ...api(
      access(PRICE_ALERTS_WRITE),
      {
        operationId: "deleteAPriceAlert",
        tags: TAGS,
        summary: "Delete a price alert",
        params: AlertParams,
        response: { 200: DeletePriceAlertResult },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) => {
      await deleteAlert(withActor(deps, request.actor), request.params.alertId);
      return { success: true, data: { alertId: request.params.alertId } };
    },
  });
}
