import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { errorResponse } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES, TRADE_SCOPES } from "../demo-account.js";
import { placeEntryOrder } from "../entry-orders/place-entry-order.js";
import { changePositionExits } from "../positions/change-exits.js";
import { cancelOrder } from "./cancel-order.js";
import { lookupOrder } from "./lookup-order.js";
import {
  CancelResponse,
  ExitsBody,
  ExitsResponse,
  LimitOrderBody,
  LimitOrderResponse,
  LookupQuery,
  LookupResponse,
  OrderIdParams,
  PositionIdParams,
  UnifiedOrderBody,
  UnifiedOrderResponse,
} from "./orders.schemas.js";
import { toLookup } from "./orders.view.js";
import { placeOrder } from "./place-order.js";
import { sizeOf } from "./sizing.js";

const REUSED_ID = errorResponse(409, "The x-request-id was already used for a different request");
const NOT_CANCELLABLE = errorResponse(
  400,
  "The order already executed (or was rejected or expired): it cannot be cancelled",
);
const NO_ORDER = errorResponse(404, "The order does not exist, is not the caller's, or is not of this route's kind");

/** The demo order book: v2's orders, v1's entry (limit) orders and cancels, and the exits change. */
export function registerOrderRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const write = { scopes: TRADE_SCOPES, requestIdRequired: true } as const;
  const read = { scopes: READ_SCOPES, requestIdRequired: true } as const;
  const execution = ["Demo Trading Execution"];
  const info = ["Demo Trading Info"];

  app.route({
    method: "POST",
    url: "/api/v2/trading/execution/demo/orders",
    ...api(
      write,
      {
        operationId: "createDemoOrder",
        tags: execution,
        summary: "Place a demo order to open: at market (mkt) or when the price reaches a trigger (mit)",
        description:
          "Exactly one of `amount`, `units` or `contracts` sizes it (contracts only where the instrument " +
          "defines a contract size: none here, so 422). `mkt` opens at once as v1's market orders do; `mit` " +
          "rests until the ask (buy) falls or the bid (sell) rises to `triggerRate`, then opens at market. " +
          "404 for an unknown instrument. Idempotent on `x-request-id`, which is also the order's `referenceId`.",
        body: UnifiedOrderBody,
        response: {
          200: UnifiedOrderResponse,
          404: errorResponse(404, "No instrument has that id or symbol"),
          409: REUSED_ID,
        },
      },
      prefix,
    ),
    handler: async (request) => placeOrder(withActor(deps, request.actor), request.id, request.body),
  });

  app.route({
    method: "DELETE",
    url: "/api/v2/trading/execution/demo/orders/:orderId",
    ...api(
      write,
      {
        operationId: "cancelDemoOrder",
        tags: execution,
        summary: "Cancel a pending demo order",
        description:
          "200 for a pending order (and again for one already cancelled); 400 when it already executed, was " +
          "rejected or expired. Of a cancel and an execution racing, exactly one wins.",
        params: OrderIdParams,
        response: { 200: CancelResponse, 400: NOT_CANCELLABLE, 404: NO_ORDER, 409: REUSED_ID },
      },
      prefix,
    ),
    handler: async (request) => cancelOrder(withActor(deps, request.actor), request.id, request.params.orderId, "any"),
  });

  app.route({
    method: "GET",
    // `::` is Fastify's escape of a literal ':' (upstream's custom method `orders:lookup`).
    url: "/api/v2/trading/info/demo/orders::lookup",
    ...api(
      read,
      {
        operationId: "lookupDemoOrder",
        tags: info,
        summary: "One of the caller's demo orders, by orderId or referenceId, with its positions",
        description:
          "Exactly one of `orderId` or `referenceId` (the x-request-id the order was placed with; 422 " +
          "otherwise). v1 and v2 orders alike.",
        querystring: LookupQuery,
        response: { 200: LookupResponse, 404: errorResponse(404, "The order does not exist or is not the caller's") },
      },
      prefix,
    ),
    handler: async (request) =>
      toLookup(
        await lookupOrder(withActor(deps, request.actor), {
          orderId: request.query.orderId,
          referenceId: request.query.referenceId,
        }),
      ),
  });

  app.route({
    method: "POST",
    url: "/api/v1/trading/execution/demo/limit-orders",
    ...api(
      write,
      {
        operationId: "openLimitOrderDemo",
        tags: execution,
        summary: "Place a demo market-if-touched order (deprecated upstream; v2 orders with orderType mit)",
        description:
          "Rests until the price reaches `Rate` (below the ask for a buy, above the bid for a sell), then " +
          "opens at market. One of `Amount` or `AmountInUnits`. Idempotent on `x-request-id`.",
        body: LimitOrderBody,
        response: { 200: LimitOrderResponse, 409: REUSED_ID },
      },
      prefix,
      { units: "body/AmountInUnits", triggerRate: "body/Rate" },
    ),
    handler: async (request) => {
      const b = request.body;
      // One of Amount or AmountInUnits (upstream: each "required if the other is not provided").
      const sizing = sizeOf({ amount: b.Amount, units: b.AmountInUnits }, undefined, "");
      const placed = await placeEntryOrder(
        withActor(deps, request.actor),
        request.id,
        {
          instrumentId: b.InstrumentID,
          isBuy: b.IsBuy,
          leverage: b.Leverage,
          stopLossRate: b.StopLossRate,
          takeProfitRate: b.TakeProfitRate,
          isTslEnabled: b.IsTslEnabled,
          isNoStopLoss: b.IsNoStopLoss,
          isNoTakeProfit: b.IsNoTakeProfit,
          triggerRate: b.Rate,
          ...sizing.size,
        },
        { requestType: sizing.requestType, requestedContracts: null },
      );
      return { token: placed.token, orderID: placed.orderId };
    },
  });

  const v1Cancel = (url: string, operationId: string, summary: string, scope: "open" | "close") =>
    app.route({
      method: "DELETE",
      url,
      ...api(
        write,
        {
          operationId,
          tags: execution,
          summary,
          description:
            "200 for a pending order (and again for one already cancelled); 400 when it already executed. " +
            "Idempotent on `x-request-id`.",
          params: OrderIdParams,
          response: { 200: CancelResponse, 400: NOT_CANCELLABLE, 404: NO_ORDER, 409: REUSED_ID },
        },
        prefix,
      ),
      handler: async (request) =>
        cancelOrder(withActor(deps, request.actor), request.id, request.params.orderId, scope),
    });
  v1Cancel(
    "/api/v1/trading/execution/demo/limit-orders/:orderId",
    "cancelLimitOrderDemo",
    "Cancel a pending demo market-if-touched order",
    "open",
  );
  v1Cancel(
    "/api/v1/trading/execution/demo/market-open-orders/:orderId",
    "cancelOpenMarketOrderDemo",
    "Cancel a pending demo order to open",
    "open",
  );
  v1Cancel(
    "/api/v1/trading/execution/demo/market-close-orders/:orderId",
    "cancelCloseOrderDemo",
    "Cancel a pending demo order to close (demo closes execute at once: 400)",
    "close",
  );

  app.route({
    method: "PATCH",
    url: "/api/v2/trading/execution/demo/positions/:positionId",
    ...api(
      write,
      {
        operationId: "changeDemoPositionExits",
        tags: execution,
        summary: "Change an open demo position's stop-loss, take-profit or trailing flag (ours, decision 0126)",
        description:
          "An absent field keeps its value; null or 0 removes a rate. The rules are the open's, against the " +
          "current price. 404 for a position that is not the caller's; 409 when it is closed.",
        params: PositionIdParams,
        body: ExitsBody,
        response: {
          200: ExitsResponse,
          404: errorResponse(404, "The position does not exist or is not the caller's"),
          409: errorResponse(409, "The position is closed, or the x-request-id was used for another request"),
        },
      },
      prefix,
      { stopLossType: "body/stopLossType", isTslEnabled: "body/stopLossType" },
    ),
    handler: async (request) =>
      changePositionExits(withActor(deps, request.actor), request.id, request.params.positionId, request.body),
  });
}
