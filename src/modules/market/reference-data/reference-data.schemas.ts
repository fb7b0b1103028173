import { Type } from "typebox";

const idList = (description: string) =>
  Type.Optional(
    Type.String({
      pattern: "^\\s*\\d{1,10}(\\s*,\\s*\\d{1,10})*\\s*$",
      description: `${description} (comma-separated); all when absent`,
    }),
  );

export const ExchangesQuery = Type.Object({ exchangeIds: idList("Exchange ids to retrieve") });
export const InstrumentTypesQuery = Type.Object({ instrumentTypeIds: idList("Instrument type ids to retrieve") });
export const StocksIndustriesQuery = Type.Object({ stocksIndustryIds: idList("Stock industry ids to retrieve") });

export const ExchangesResponse = Type.Object(
  {
    exchangeInfo: Type.Array(Type.Object({ exchangeID: Type.Integer(), exchangeDescription: Type.String() })),
  },
  { description: "Exchanges, by id; ids that name none are left out" },
);

export const InstrumentTypesResponse = Type.Object(
  {
    instrumentTypes: Type.Array(
      Type.Object({ instrumentTypeID: Type.Integer(), instrumentTypeDescription: Type.String() }),
    ),
  },
  { description: "Instrument types (asset classes), by id" },
);

export const StocksIndustriesResponse = Type.Object(
  {
    stocksIndustries: Type.Array(Type.Object({ industryID: Type.Integer(), industryName: Type.String() })),
  },
  { description: "Stock industries, by id" },
);

const Close = (description: string) =>
  Type.Object(
    {
      price: Type.Number({ description: "The close; -1 when the engine has no price history that far back" }),
      date: Type.String({ format: "date-time", description: "The day of the close; 0001-01-01 when there is none" }),
    },
    { description },
  );

export const ClosingPricesResponse = Type.Array(
  Type.Object({
    instrumentId: Type.Integer(),
    officialClosingPrice: Type.Number({ description: "The previous day's close; -1 when there is none yet" }),
    isMarketOpen: Type.Boolean({ description: "Obsolete (upstream): the simulated market never closes" }),
    closingPrices: Type.Object({
      daily: Close("The close of the last day before today (UTC)"),
      weekly: Close("The close of the last day before this week (weeks start on Monday)"),
      monthly: Close("The close of the last day before this month"),
    }),
  }),
  { description: "Every instrument's closes, read off the engine's daily candles" },
);
