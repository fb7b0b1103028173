import type { Quote } from "../../core/market.js";
import { message } from "./protocol.js";

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

/** The sides a delta carries, as bits: a tick's delta names those that moved. */
export const ASK_MOVED = 1;
export const BID_MOVED = 2;
export const MID_MOVED = 4;

/** Which sides moved since `previous` (all of them when there is none). */
export function rateMask(quote: Quote, previous: Quote | undefined): number {
  return (
    (previous?.ask !== quote.ask ? ASK_MOVED : 0) |
    (previous?.bid !== quote.bid ? BID_MOVED : 0) |
    (previous?.mid !== quote.mid ? MID_MOVED : 0)
  );
}

/** The delta naming the sides in `mask`, at the quote's values, with Date and PriceRateID. */
export function rateFields(quote: Quote, mask: number): RateFields {
  return {
    ...(mask & ASK_MOVED ? askFields(quote) : {}),
    ...(mask & BID_MOVED ? bidFields(quote) : {}),
    ...(mask & MID_MOVED ? { LastExecution: text(quote.mid) } : {}),
    Date: quote.date,
    PriceRateID: text(quote.priceRateId),
  };
}

/**
 * A sparse delta as upstream sends them: only the sides that moved since `previous` (both when
 * there is none), always Date and PriceRateID (upstream's "heartbeat" delta when nothing moved).
 */
export function rateDelta(quote: Quote, previous: Quote | undefined): RateFields {
  return rateFields(quote, rateMask(quote, previous));
}

/**
 * One instrument's tick as every subscriber gets it: the delta and its message, serialized once.
 * A subscriber that missed earlier ticks (its client was slow) gets them merged into this one:
 * the sides that moved in any of them, which is `mask`'s delta at this tick's values (a side a
 * delta leaves out has not moved since the last delta that named it, so its value is this tick's).
 * That message too is built once per mask and shared by every subscriber that missed the same.
 */
export class RateTick {
  readonly fields: RateFields;
  /** The message as UTF-8, as it goes into every subscriber's frame. */
  readonly bytes: Buffer;
  private merged: (Buffer | undefined)[] | undefined;

  constructor(
    readonly quote: Quote,
    readonly topic: string,
    readonly mask: number,
  ) {
    this.fields = rateFields(quote, mask);
    this.bytes = Buffer.from(message(topic, RATE_TYPE, this.fields));
  }

  /** The merged delta's fields for a subscriber that missed ticks whose sides are in `mask`. */
  conflatedFields(mask: number): RateFields {
    return mask === this.mask ? this.fields : rateFields(this.quote, mask);
  }

  /** The message for a subscriber that missed ticks whose sides are in `mask` (this tick's included). */
  conflated(mask: number): Buffer {
    if (mask === this.mask) return this.bytes;
    this.merged ??= [];
    let bytes = this.merged[mask];
    if (bytes === undefined) {
      bytes = Buffer.from(message(this.topic, RATE_TYPE, rateFields(this.quote, mask)));
      this.merged[mask] = bytes;
    }
    return bytes;
  }
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
