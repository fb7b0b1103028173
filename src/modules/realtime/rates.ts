import type { Quote } from "../../core/market.js";

/**
 * Rates as upstream pushes them (upstream-websocket.md §3.1): PascalCase names, every value a
 * string. The values are REST's `GET /market-data/instruments/rates` (market.view.ts toRate):
 * LastExecution is the mid, the conversion rates are 1 (every instrument is quoted in USD), and
 * the deprecated UnitMargin* and *Discounted fields repeat the bid and ask.
 */

export type RateFields = Record<string, string>;

export const RATE_TYPE = "Trading.Instrument.Rate";
export const SNAPSHOT_TYPE = "Snapshot";

const text = (n: number) => String(n);

const askFields = (q: Quote): RateFields => {
  const ask = text(q.ask);
  return { Ask: ask, UnitMarginAsk: ask, AskDiscounted: ask, UnitMarginAskDiscounted: ask };
};

const bidFields = (q: Quote): RateFields => {
  const bid = text(q.bid);
  return { Bid: bid, NewUnitMargin: bid, UnitMarginBid: bid, BidDiscounted: bid, UnitMarginBidDiscounted: bid };
};

/**
 * A sparse delta as upstream sends them: only the sides that moved since `previous` (both when
 * there is none), always Date and PriceRateID (upstream's "heartbeat" delta when nothing moved).
 */
export function rateDelta(quote: Quote, previous: Quote | undefined): RateFields {
  return {
    ...(previous?.ask !== quote.ask ? askFields(quote) : {}),
    ...(previous?.bid !== quote.bid ? bidFields(quote) : {}),
    ...(previous?.mid !== quote.mid ? { LastExecution: text(quote.mid) } : {}),
    Date: quote.date,
    PriceRateID: text(quote.priceRateId),
  };
}

/**
 * The full state sent first on `snapshot: true`, with upstream's snapshot-only fields.
 * `IsMarketOpen` / `IsExchangeOpen` follow the market hours (decision 0128); the official closing price is the close of the last whole day
 * the engine priced, else the catalog's seed price.
 */
export function rateSnapshot(quote: Quote, officialClosingPrice: number, marketOpen = true): RateFields {
  const id = text(quote.instrumentId);
  return {
    InstrumentID: id,
    ...askFields(quote),
    ...bidFields(quote),
    LastExecution: text(quote.mid),
    ConversionRateAsk: "1",
    ConversionRateBid: "1",
    Date: quote.date,
    PriceRateID: text(quote.priceRateId),
    IsInstrumentActive: "true",
    OfficialClosingPrice: text(officialClosingPrice),
    IsOfficialClosingPrice: "False",
    IsMarketOpen: String(marketOpen),
    IsExchangeOpen: String(marketOpen),
    AllowBuy: "true",
    AllowSell: "true",
    InstrumentId: id,
  };
}
