import type { Static } from "typebox";
import { api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { errorResponse } from "../../http/schemas.js";
import { type Deps, withActor } from "../context.js";
import { closePosition } from "./close-position.js";
import { READ_SCOPES, TRADE_SCOPES } from "./demo-account.js";
import { type OrderTerms, openMarketOrder } from "./open-market-order.js";
import { AggregatePortfolioQuery, AggregatePortfolioResponse } from "./portfolio/aggregate-portfolio.schemas.js";
import { toAggregatePortfolio } from "./portfolio/aggregate-portfolio.view.js";
import { readAggregatePortfolio } from "./portfolio/read-aggregate-portfolio.js";
import { getOrder, getPortfolio, getTradeHistory } from "./read-account.js";
import {
  CloseBody,
  CloseOrderResponse,
  HistoryQuery,
  HistoryResponse,
  OpenByAmountBody,
  OpenByUnitsBody,
  OpenOrderResponse,
  OrderIdParams,
  OrderInfoResponse,
  PnlResponse,
  PortfolioResponse,
  PositionIdParams,
} from "./trading.schemas.js";
import { toCloseOrder, toOpenOrder, toOrderInfo, toPnl, toPortfolio, toTrade } from "./trading.view.js";

/** Upstream's explode:false id list (`1,2`), as numbers; undefined when absent. */
const idList = (text: string | undefined) =>
  text === undefined ? undefined : text.split(",").map((s) => Number(s.trim()));

const REUSED_ID = errorResponse(409, "The x-request-id was already used for a different request");

/**
 * The fields both open-order bodies share (the schemas' openFields), in the use case's words. The
 * handlers spread them after the size: a field after a spread costs a hidden class per request
 * (decision 0213).
 */
function orderTerms(b: Omit<Static<typeof OpenByUnitsBody>, "AmountInUnits">): OrderTerms {
  return {
    instrumentId: b.InstrumentID,
    isBuy: b.IsBuy,
    leverage: b.Leverage,
    stopLossRate: b.StopLossRate,
    takeProfitRate: b.TakeProfitRate,
    isTslEnabled: b.IsTslEnabled,
    isNoStopLoss: b.IsNoStopLoss,
    isNoTakeProfit: b.IsNoTakeProfit,
  };
}

export function registerTradingRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const write = { scopes: TRADE_SCOPES, requestIdRequired: true } as const;
  const read = { scopes: READ_SCOPES } as const;
  const execution = ["Demo Trading Execution"];
  const info = ["Demo Trading Info"];

  app.route({
    method: "POST",
    url: "/api/v1/trading/execution/demo/market-open-orders/by-amount",
    ...api(
      write,
      {
        operationId: "openMarketPositionByAmountDemo",
        tags: execution,
        summary: "Open a demo position sized by a cash amount",
        description:
          "Opens at the current ask (buy) or bid (sell), debiting `Amount` from the demo cash in the same " +
          "transaction. Every broken rule is a 422 naming the field. Idempotent on `x-request-id`: a retry " +
          "with the same body returns the original response and opens nothing; another body gets 409.",
        body: OpenByAmountBody,
        response: { 200: OpenOrderResponse, 409: REUSED_ID },
      },
      prefix,
    ),
    handler: async (request) => {
      const b = request.body;
      const result = await openMarketOrder(withActor(deps, request.actor), request.id, {
        amount: b.Amount,
        ...orderTerms(b),
      });
      return toOpenOrder(result);
    },
  });

  app.route({
    method: "POST",
    url: "/api/v1/trading/execution/demo/market-open-orders/by-units",
    ...api(
      write,
      {
        operationId: "openMarketPositionByUnitsDemo",
        tags: execution,
        summary: "Open a demo position sized in units",
        description:
          "As by-amount, with `AmountInUnits` instead of `Amount`: the margin is units × rate ÷ leverage. " +
          "Idempotent on `x-request-id`.",
        body: OpenByUnitsBody,
        response: { 200: OpenOrderResponse, 409: REUSED_ID },
      },
      prefix,
      { units: "body/AmountInUnits" },
    ),
    handler: async (request) => {
      const b = request.body;
      const result = await openMarketOrder(withActor(deps, request.actor), request.id, {
        units: b.AmountInUnits,
        ...orderTerms(b),
      });
      return toOpenOrder(result);
    },
  });

  app.route({
    method: "POST",
    url: "/api/v1/trading/execution/demo/market-close-orders/positions/:positionId",
    ...api(
      write,
      {
        operationId: "closePositionByMarketRateDemo",
        tags: execution,
        summary: "Close a demo position, fully or in part",
        description:
          "Closes at the bid (long) or ask (short). `UnitsToDeduct` null or absent closes everything. " +
          "404 for a position that is not the caller's; 409 when it is already closed. Idempotent on `x-request-id`.",
        params: PositionIdParams,
        body: CloseBody,
        response: {
          200: CloseOrderResponse,
          404: errorResponse(404, "The position does not exist or is not the caller's"),
          409: errorResponse(409, "The position is already closed, or the x-request-id was used for another request"),
        },
      },
      prefix,
    ),
    handler: async (request) => {
      const result = await closePosition(withActor(deps, request.actor), request.id, request.params.positionId, {
        instrumentId: request.body.InstrumentID,
        unitsToDeduct: request.body.UnitsToDeduct,
      });
      return toCloseOrder(result);
    },
  });

  app.route({
    method: "GET",
    url: "/api/v1/trading/info/demo/portfolio",
    ...api(
      read,
      {
        operationId: "getPortfolioDemo",
        tags: info,
        summary: "The demo portfolio: open positions and available cash",
        response: { 200: PortfolioResponse },
      },
      prefix,
    ),
    handler: async (request) => toPortfolio(await getPortfolio(withActor(deps, request.actor))),
  });

  app.route({
    method: "GET",
    url: "/api/v1/trading/info/demo/pnl",
    ...api(
      read,
      {
        operationId: "getDemoAccountPnl",
        tags: info,
        summary: "The demo portfolio with unrealised and realised profit and loss",
        description:
          "Positions are valued at the close-side price (bid for a long, ask for a short). equity = credit + invested + unrealizedPnL.",
        response: { 200: PnlResponse },
      },
      prefix,
    ),
    handler: async (request) => toPnl(await getPortfolio(withActor(deps, request.actor))),
  });

  app.route({
    method: "GET",
    url: "/api/v1/trading/info/demo/aggregate-portfolio",
    ...api(
      read,
      {
        operationId: "getAggregatedPortfolioDemo",
        tags: info,
        summary: "The demo portfolio aggregated by instrument, with the copies' totals",
        description:
          "Account totals, the caller's own positions summed per instrument, and each copy (mirror) with its " +
          "totals and positions summed per instrument. `instrumentIds` and `mirrorIds` (comma-separated; mirror 0 " +
          "= the caller's own positions) scope the lists; the account's and the copies' totals stay whole.",
        querystring: AggregatePortfolioQuery,
        response: { 200: AggregatePortfolioResponse },
      },
      prefix,
    ),
    handler: async (request) =>
      toAggregatePortfolio(
        await readAggregatePortfolio(withActor(deps, request.actor), {
          instrumentIds: idList(request.query.instrumentIds),
          mirrorIds: idList(request.query.mirrorIds),
        }),
      ),
  });

  app.route({
    method: "GET",
    url: "/api/v1/trading/info/demo/orders/:orderId",
    ...api(
      read,
      {
        operationId: "getDemoOrderForOpenInfo",
        tags: info,
        summary: "One of the caller's demo orders",
        params: OrderIdParams,
        response: {
          200: OrderInfoResponse,
          404: errorResponse(404, "The order does not exist or is not the caller's"),
        },
      },
      prefix,
    ),
    handler: async (request) => toOrderInfo(await getOrder(withActor(deps, request.actor), request.params.orderId)),
  });

  app.route({
    method: "GET",
    url: "/api/v1/trading/info/trade/demo/history",
    ...api(
      read,
      {
        operationId: "listTradingHistory",
        tags: info,
        summary: "Closed demo trades, newest first",
        querystring: HistoryQuery,
        response: { 200: HistoryResponse },
      },
      prefix,
    ),
    handler: async (request) => {
      const q = request.query;
      const rows = await getTradeHistory(withActor(deps, request.actor), {
        minDate: q.minDate ? `${q.minDate}T00:00:00.000Z` : undefined,
        page: q.page,
        pageSize: q.pageSize,
      });
      return rows.map(toTrade);
    },
  });
}
