import { AppError, invalid, notFound } from "../../core/errors.js";
import type { Deps } from "../context.js";
import { findInstrumentBySymbol, findInstruments, type Instrument } from "../market/find-instruments.js";
import { currentQuotes } from "../market/quotes.js";
import type { AlertDirection } from "./alert-index.js";

/** The instrument an alert names: by symbol (upstream), by id (ours), or both when they agree. */
export async function alertInstrument(
  deps: Deps,
  input: { symbol?: string | undefined; instrumentId?: number | undefined },
): Promise<Instrument> {
  if (input.symbol === undefined && input.instrumentId === undefined) {
    throw invalid("symbol", "is required (or {instrumentId})");
  }
  const bySymbol = input.symbol !== undefined ? await findInstrumentBySymbol(deps, input.symbol) : undefined;
  if (input.symbol !== undefined && !bySymbol) throw notFound(`The instrument ${JSON.stringify(input.symbol)}`);
  if (input.instrumentId === undefined) return bySymbol!;
  const byId = (await findInstruments(deps, [input.instrumentId])).get(input.instrumentId);
  if (!byId) throw notFound(`The instrument ${input.instrumentId}`);
  if (bySymbol && bySymbol.instrumentId !== byId.instrumentId) {
    throw invalid("instrumentId", `names ${byId.symbol}, not {symbol} ${bySymbol.symbol}`);
  }
  return byId;
}

/**
 * Where a target stands from the bid now: above fires on a rise to it, below on a fall. A target
 * at the bid would fire on the next tick whichever way it went, so it is refused.
 */
export async function directionFrom(
  deps: Deps,
  instrument: Instrument,
  targetPrice: number,
): Promise<{ direction: AlertDirection; bid: number }> {
  const quote = (await currentQuotes(deps, [instrument.instrumentId])).get(instrument.instrumentId);
  if (!quote) throw new AppError("ServiceUnavailable", `${instrument.symbol} has no price yet`);
  if (targetPrice === quote.bid) {
    throw invalid("targetPrice", `must differ from the current bid of ${instrument.symbol} (${quote.bid})`);
  }
  return { direction: targetPrice > quote.bid ? "above" : "below", bid: quote.bid };
}
