import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { errorResponse } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { MARKET_DATA_SCOPES } from "../market-data.js";
import { discoverInstruments } from "./discover-instruments.js";
import {
  DiscoverQuery,
  DiscoverResponse,
  InstrumentItem,
  InstrumentQuery,
  ShortenerParams,
  SymbolParams,
} from "./discovery.schemas.js";
import { getInstrument } from "./get-instrument.js";

/** The Asset Explorer: the catalog with prices, industries and market caps, filtered (decision 0135). */
export function registerDiscoveryRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const access = { scopes: MARKET_DATA_SCOPES, rateLimit: "market-data" } as const;
  const tags = ["Asset Explorer"];
  const E404 = errorResponse(404, "No instrument has this symbol");

  app.route({
    method: "GET",
    url: "/api/v1/instruments/discover",
    ...api(
      access,
      {
        operationId: "discoverInstruments",
        tags,
        summary: "Discover instruments: filter by any field, sort, page and project",
        description:
          "Filters are parameters named by an Instrument field (`exchangeID=4`, `instrumentType=Stocks`); a field " +
          "name ending in `Min` or `Max` bounds a numeric field, inclusive (`marketCapMin=1000000000000`). An " +
          "unknown field, a malformed value or a bound on a non-numeric field is a 400.",
        querystring: DiscoverQuery,
        response: {
          200: DiscoverResponse,
          400: errorResponse(
            400,
            "A filter, sort or fields parameter names no supported field, or a value is malformed",
          ),
        },
      },
      prefix,
    ),
    handler: async (request) =>
      discoverInstruments(withActor(deps, request.actor), request.query as Readonly<Record<string, unknown>>),
  });

  app.route({
    method: "GET",
    url: "/api/v1/instruments/:symbol",
    ...api(
      access,
      {
        operationId: "getAnInstrumentBySymbol",
        tags,
        summary: "One instrument by its symbol",
        querystring: InstrumentQuery,
        params: SymbolParams,
        response: {
          200: InstrumentItem,
          400: errorResponse(400, "`fields` names no supported field"),
          404: E404,
        },
      },
      prefix,
    ),
    handler: async (request) =>
      getInstrument(withActor(deps, request.actor), request.params.symbol, { fields: request.query.fields }),
  });

  app.route({
    method: "GET",
    url: "/api/v1/instruments/:symbol/:shortener",
    ...api(
      access,
      {
        operationId: "getInstrumentSymbolUsingFieldShortener",
        tags,
        summary: "One instrument by its symbol, restricted to a field preset",
        querystring: InstrumentQuery,
        params: ShortenerParams,
        response: {
          200: InstrumentItem,
          400: errorResponse(400, "The shortener is not an allowed one, or `fields` names a field outside it"),
          404: E404,
        },
      },
      prefix,
    ),
    handler: async (request) =>
      getInstrument(withActor(deps, request.actor), request.params.symbol, {
        fields: request.query.fields,
        shortener: request.params.shortener,
      }),
  });
}
