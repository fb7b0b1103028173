import { Type } from "typebox";
import { Int32, Int32Id } from "../../http/schemas.js";
import { MARKET_APPLICATION, MARKET_ASSET_TYPES } from "./catalog.js";

export const MarketAvatar = Type.Object({
  small: Type.String({ description: "35x35 image URL" }),
  medium: Type.String({ description: "50x50 image URL" }),
  large: Type.String({ description: "150x150 image URL" }),
  svg: Type.Object({ url: Type.String(), backgroundColor: Type.String(), textColor: Type.String() }),
});

/** The spec's Market resource: an instrument reference inside tags, post metadata and watchlists. */
export const Market = Type.Object(
  {
    id: Type.String({ description: "The instrument id, as a string" }),
    symbolName: Type.String(),
    displayName: Type.String(),
    updated: Type.String({ format: "date-time" }),
    assetType: Type.Enum(MARKET_ASSET_TYPES, {
      description:
        "Asset class (upstream's enum): FOREX, CommodityMetals, CommodityEnergyAgriculture, Index, Stocks, ETF " +
        "or CryptoCoin here. The instrument type name (Currencies, Commodities, ...) is the search's `instrumentType`.",
    }),
    internalId: Type.Integer({ description: "The instrument id" }),
    avatar: MarketAvatar,
    application: Type.Literal(MARKET_APPLICATION, { description: "Upstream's enum is eToro, Delta, Gatsby" }),
    metadata: Type.String({ description: "Serialized JSON text: instrumentId, symbol, exchangeId, hasExpirationDate" }),
    assetTypeId: Type.Integer({ format: "int32" }),
    assetTypeSubCategoryId: Type.Integer({ format: "int32" }),
  },
  { description: "Market: an instrument reference" },
);

const idList = (description: string) =>
  Type.String({ pattern: "^\\s*\\d{1,10}(\\s*,\\s*\\d{1,10})*\\s*$", description: `${description} (comma-separated)` });

export const RatesQuery = Type.Object({
  instrumentIds: idList("Instrument ids, at most 100"),
});

export const Rate = Type.Object({
  instrumentID: Type.Integer(),
  ask: Type.Number({ description: "Buy price: a long position opens here, a short one closes here" }),
  bid: Type.Number({ description: "Sell price: a long position closes here, a short one opens here" }),
  lastExecution: Type.Number({ description: "The mid price of the last tick" }),
  conversionRateAsk: Type.Number({
    description: "Instrument currency to USD; every seeded instrument is priced in USD",
  }),
  conversionRateBid: Type.Number(),
  date: Type.String({ format: "date-time" }),
  priceRateID: Type.Integer({ description: "The tick the price belongs to" }),
});

export const RatesResponse = Type.Object(
  {
    rates: Type.Array(Rate, { description: "In the order asked, unknown ids left out" }),
    notFoundInstrumentIds: Type.Array(Type.Integer(), { description: "Requested ids that name no instrument" }),
  },
  { description: "Current rates" },
);

export const InstrumentsQuery = Type.Object({
  instrumentIds: Type.Optional(idList("Instrument ids to filter on")),
  exchangeIds: Type.Optional(idList("Exchange ids to filter on")),
  instrumentTypeIds: Type.Optional(idList("Instrument type (asset class) ids to filter on")),
});

export const InstrumentImage = Type.Object({
  instrumentID: Type.Integer(),
  width: Type.Number(),
  height: Type.Number(),
  uri: Type.String(),
  backgroundColor: Type.String(),
  textColor: Type.String(),
});

export const InstrumentDisplayData = Type.Object({
  instrumentID: Type.Integer(),
  instrumentDisplayName: Type.String(),
  instrumentTypeID: Type.Integer(),
  exchangeID: Type.Integer(),
  symbolFull: Type.String(),
  priceSource: Type.String(),
  hasExpirationDate: Type.Boolean(),
  isInternalInstrument: Type.Boolean(),
  images: Type.Array(InstrumentImage),
  allowedLeverages: Type.Array(Type.Integer(), { description: "Leverage values a demo order may use" }),
  minPositionAmount: Type.Number({ description: "Smallest position amount, USD" }),
});

export const InstrumentsResponse = Type.Object(
  { instrumentDisplayDatas: Type.Array(InstrumentDisplayData) },
  { description: "Catalog entries, by instrument id" },
);

export const SearchQuery = Type.Object({
  searchText: Type.Optional(
    Type.String({ maxLength: 100, description: "Symbol prefix or part of the name; empty = all" }),
  ),
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  pageNumber: Int32({ minimum: 1, default: 1 }),
  fields: Type.Optional(
    Type.String({ description: "Comma-separated fields to return (instrumentId is always returned); default all" }),
  ),
});

export const SearchItem = Type.Object({
  instrumentId: Type.Integer(),
  displayname: Type.Optional(Type.String()),
  symbol: Type.Optional(Type.String()),
  instrumentTypeID: Type.Optional(Type.Integer()),
  instrumentType: Type.Optional(Type.String()),
  exchangeID: Type.Optional(Type.Integer()),
  isOpen: Type.Optional(Type.Boolean()),
  isCurrentlyTradable: Type.Optional(Type.Boolean()),
  isBuyEnabled: Type.Optional(Type.Boolean()),
  isDelisted: Type.Optional(Type.Boolean()),
  logo35x35: Type.Optional(Type.String()),
  logo50x50: Type.Optional(Type.String()),
  logo150x150: Type.Optional(Type.String()),
  currentRate: Type.Optional(Type.Number()),
});

export const SearchResponse = Type.Object(
  {
    page: Type.Integer(),
    pageSize: Type.Integer(),
    totalItems: Type.Integer(),
    items: Type.Array(SearchItem),
  },
  { description: "Instruments matching the text: an exact symbol first, then by symbol" },
);

export const CANDLE_INTERVAL_NAMES = [
  "OneMinute",
  "FiveMinutes",
  "TenMinutes",
  "FifteenMinutes",
  "ThirtyMinutes",
  "OneHour",
  "FourHours",
  "OneDay",
  "OneWeek",
] as const;

export const CandlesParams = Type.Object({
  instrumentId: Int32Id(),
  direction: Type.Union([Type.Literal("asc"), Type.Literal("desc")]),
  interval: Type.Enum(CANDLE_INTERVAL_NAMES),
  candlesCount: Type.Integer({ minimum: 1, maximum: 1000 }),
});

export const CandleItem = Type.Object({
  instrumentID: Type.Integer(),
  fromDate: Type.String({ format: "date-time" }),
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  close: Type.Number(),
  volume: Type.Number({ description: "Ticks in the candle (the simulated feed has no traded volume)" }),
});

export const CandlesResponse = Type.Object(
  {
    interval: Type.Enum(CANDLE_INTERVAL_NAMES),
    candles: Type.Array(
      Type.Object({
        instrumentId: Type.Integer(),
        candles: Type.Array(CandleItem),
        rangeOpen: Type.Number(),
        rangeClose: Type.Number(),
        rangeHigh: Type.Number(),
        rangeLow: Type.Number(),
        volume: Type.Number(),
      }),
    ),
  },
  { description: "Candles built from the feed's ticks since this server started" },
);
