import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { type Deps, withActor } from "../../context.js";
import { MARKET_DATA_SCOPES } from "../market-data.js";
import { getClosingPrices } from "./get-closing-prices.js";
import { listExchanges, listInstrumentTypes, listStocksIndustries } from "./list-reference-lists.js";
import {
  ClosingPricesResponse,
  ExchangesQuery,
  ExchangesResponse,
  InstrumentTypesQuery,
  InstrumentTypesResponse,
  StocksIndustriesQuery,
  StocksIndustriesResponse,
} from "./reference-data.schemas.js";

/** `1, 2,3` → [1, 2, 3]; the schema has already checked the shape. */
const ids = (text: string | undefined) =>
  text === undefined ? undefined : text.split(",").map((s) => Number(s.trim()));

/** The reference lists behind the catalog's ids, and every instrument's closes (decisions 0133, 0134). */
export function registerReferenceDataRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const access = { scopes: MARKET_DATA_SCOPES, rateLimit: "market-data" } as const;
  const tags = ["Market Data"];

  app.route({
    method: "GET",
    url: "/api/v1/market-data/exchanges",
    ...api(
      access,
      {
        operationId: "GetExchanges",
        tags,
        summary: "The exchanges instruments trade on",
        description: "`exchangeIds` is comma-separated; ids that name no exchange are left out.",
        querystring: ExchangesQuery,
        response: { 200: ExchangesResponse },
      },
      prefix,
    ),
    handler: async (request) => ({
      exchangeInfo: listExchanges(withActor(deps, request.actor), ids(request.query.exchangeIds)).map((e) => ({
        exchangeID: e.id,
        exchangeDescription: e.name,
      })),
    }),
  });

  app.route({
    method: "GET",
    url: "/api/v1/market-data/instrument-types",
    ...api(
      access,
      {
        operationId: "GetInstrumentTypes",
        tags,
        summary: "Instrument types (asset classes): currencies, commodities, indices, stocks, ETFs, crypto",
        querystring: InstrumentTypesQuery,
        response: { 200: InstrumentTypesResponse },
      },
      prefix,
    ),
    handler: async (request) => ({
      instrumentTypes: listInstrumentTypes(withActor(deps, request.actor), ids(request.query.instrumentTypeIds)).map(
        (t) => ({ instrumentTypeID: t.id, instrumentTypeDescription: t.name }),
      ),
    }),
  });

  app.route({
    method: "GET",
    url: "/api/v1/market-data/stocks-industries",
    ...api(
      access,
      {
        operationId: "GetStocksIndustries",
        tags,
        summary: "Stock industries (the sector of each stock)",
        querystring: StocksIndustriesQuery,
        response: { 200: StocksIndustriesResponse },
      },
      prefix,
    ),
    handler: async (request) => ({
      stocksIndustries: listStocksIndustries(withActor(deps, request.actor), ids(request.query.stocksIndustryIds)).map(
        (i) => ({ industryID: i.id, industryName: i.name }),
      ),
    }),
  });

  app.route({
    method: "GET",
    url: "/api/v1/market-data/instruments/history/closing-price",
    ...api(
      access,
      {
        operationId: "getClosingPrices",
        tags,
        summary: "Every instrument's previous daily, weekly and monthly close",
        description:
          "Read off the engine's daily candles (the ones the candles operation serves): the close of the last " +
          "day before today, before this week (Monday) and before this month, UTC. A period older than the " +
          "engine's price history has price -1 and date 0001-01-01.",
        response: { 200: ClosingPricesResponse },
      },
      prefix,
    ),
    handler: async (request) =>
      (await getClosingPrices(withActor(deps, request.actor))).map(({ instrument, closes }) => ({
        instrumentId: instrument.instrumentId,
        officialClosingPrice: closes.daily.price,
        isMarketOpen: true,
        closingPrices: closes,
      })),
  });
}
