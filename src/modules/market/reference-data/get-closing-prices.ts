import { requireUser } from "../../../core/access.js";
import type { Quote } from "../../../core/market.js";
import type { Ctx, Deps } from "../../context.js";
import { type InstrumentDetail, listInstruments } from "../find-instruments.js";
import { MARKET_DATA_SCOPES } from "../market-data.js";
import { currentQuotes } from "../quotes.js";
import { CLOSE_CANDLES, type ClosingPrices, closingPrices } from "./closing-prices.js";

export interface PricedSnapshot {
  instrument: InstrumentDetail;
  quote: Quote | undefined;
  closes: ClosingPrices;
}

/**
 * Every catalog instrument with its current quote and its closes, read off the engine's daily
 * candles (the ones GET …/history/candles/…/OneDay/… serves) at the clock's now.
 */
export async function pricedCatalog(deps: Deps): Promise<PricedSnapshot[]> {
  const instruments = await listInstruments(deps);
  const quotes = await currentQuotes(
    deps,
    instruments.map((i) => i.instrumentId),
  );
  const now = deps.clock.now();
  return instruments.map((instrument) => ({
    instrument,
    quote: quotes.get(instrument.instrumentId),
    closes: closingPrices(deps.market.candles(instrument.instrumentId, "OneDay", CLOSE_CANDLES, "asc"), now),
  }));
}

/** Historical closing prices of every instrument (decision 0134). */
export async function getClosingPrices(ctx: Ctx): Promise<PricedSnapshot[]> {
  requireUser(ctx.actor, MARKET_DATA_SCOPES);
  return pricedCatalog(ctx);
}
