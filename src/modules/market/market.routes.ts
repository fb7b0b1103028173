import { Type } from "typebox";
import { api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { errorResponse, Int32Id } from "../../http/schemas.js";
import { type Deps, withActor } from "../context.js";
import { registerDiscoveryRoutes } from "./discovery/discovery.routes.js";
import { findInstruments } from "./find-instruments.js";
import {
  CandlesParams,
  CandlesResponse,
  InstrumentsQuery,
  InstrumentsResponse,
  RatesQuery,
  RatesResponse,
  SearchQuery,
  SearchResponse,
} from "./market.schemas.js";
import { avatarSvg, toCandles, toInstrumentDisplayData, toRate, toSearchItem } from "./market.view.js";
import { getCandles, getInstruments, getRates, MARKET_DATA_SCOPES, searchMarket } from "./market-data.js";
import { registerReferenceDataRoutes } from "./reference-data/reference-data.routes.js";

/** `1, 2,3` → [1, 2, 3]; the schema has already checked the shape. */
const ids = (text: string | undefined) =>
  text === undefined
    ? undefined
    : text
        .split(",")
        .map((s) => Number(s.trim()))
        .filter((n) => Number.isSafeInteger(n));

const AVATAR_SIZES: Record<string, number> = { "35x35": 35, "50x50": 50, "150x150": 150, avatar: 150 };

export function registerMarketRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const access = { scopes: MARKET_DATA_SCOPES, rateLimit: "market-data" } as const;
  const tags = ["Market Data"];

  app.route({
    method: "GET",
    url: "/api/v1/market-data/instruments/rates",
    ...api(
      access,
      {
        operationId: "retrieveCurrentMarketRatesPricingInformation",
        tags,
        summary: "Current bid and ask of up to 100 instruments",
        description:
          "`instrumentIds` is comma-separated (`1001,100000`), at most 100 distinct ids. Ids that name no " +
          "instrument are listed in `notFoundInstrumentIds` instead of failing the request.",
        querystring: RatesQuery,
        response: { 200: RatesResponse },
      },
      prefix,
    ),
    handler: async (request) => {
      const result = await getRates(withActor(deps, request.actor), ids(request.query.instrumentIds) ?? []);
      return { rates: result.rates.map(toRate), notFoundInstrumentIds: result.notFoundInstrumentIds };
    },
  });

  app.route({
    method: "GET",
    url: "/api/v1/market-data/instruments",
    ...api(
      access,
      {
        operationId: "GetInstrumentsByFilters",
        tags,
        summary: "Instrument metadata: names, exchange, asset class, images, allowed leverages",
        querystring: InstrumentsQuery,
        response: { 200: InstrumentsResponse },
      },
      prefix,
    ),
    handler: async (request) => {
      const list = await getInstruments(withActor(deps, request.actor), {
        instrumentIds: ids(request.query.instrumentIds),
        exchangeIds: ids(request.query.exchangeIds),
        instrumentTypeIds: ids(request.query.instrumentTypeIds),
      });
      return { instrumentDisplayDatas: list.map(toInstrumentDisplayData) };
    },
  });

  app.route({
    method: "GET",
    url: "/api/v1/market-data/search",
    ...api(
      access,
      {
        operationId: "searchForInstruments",
        tags,
        summary: "Search instruments by symbol or name",
        description:
          "Case-insensitive: a symbol starting with `searchText` or a name containing it. An exact symbol " +
          "comes first, then by symbol. `pageNumber` starts at 1.",
        querystring: SearchQuery,
        response: { 200: SearchResponse },
      },
      prefix,
    ),
    handler: async (request) => {
      const q = request.query;
      const result = await searchMarket(withActor(deps, request.actor), q.searchText ?? "", q.pageSize, q.pageNumber);
      return {
        page: result.page,
        pageSize: result.pageSize,
        totalItems: result.totalItems,
        items: result.items.map((i) => toSearchItem(i.instrument, i.quote, q.fields)),
      };
    },
  });

  app.route({
    method: "GET",
    url: "/api/v1/market-data/instruments/:instrumentId/history/candles/:direction/:interval/:candlesCount",
    ...api(
      access,
      {
        operationId: "getCandles",
        tags,
        summary: "OHLC candles of an instrument",
        description:
          "Candles are folded from the ticks this server has produced since it started (up to 1000 per " +
          "interval); `volume` counts ticks. 404 when the instrument is unknown.",
        params: CandlesParams,
        response: { 200: CandlesResponse, 404: errorResponse(404, "No instrument has this id") },
      },
      prefix,
    ),
    handler: async (request) => {
      const p = request.params;
      const result = await getCandles(
        withActor(deps, request.actor),
        p.instrumentId,
        p.interval,
        p.candlesCount,
        p.direction,
      );
      return toCandles(result);
    },
  });

  // Images are fetched by <img> tags, which send no credentials: this route is public.
  app.route({
    method: "GET",
    url: "/api/v1/market-data/avatars/:instrumentId/:file",
    schema: {
      hide: true,
      params: Type.Object({ instrumentId: Int32Id(), file: Type.String() }),
    },
    handler: async (request, reply) => {
      const { instrumentId, file } = request.params;
      const size = AVATAR_SIZES[file.replace(/\.svg$/, "")];
      const instrument = (await findInstruments(deps, [instrumentId])).get(instrumentId);
      if (!instrument || size === undefined || !file.endsWith(".svg")) {
        return reply.status(404).send({
          errorCode: "NotFound",
          errorMessage: "No such instrument image",
          requestId: request.id,
        });
      }
      return reply
        .header("content-type", "image/svg+xml")
        .header("cache-control", "public, max-age=86400")
        .send(avatarSvg(instrument, size));
    },
  });

  registerReferenceDataRoutes(app, deps);
  registerDiscoveryRoutes(app, deps);
}
