import { requireUser } from "../../../core/access.js";
import { invalid } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { findInstrumentBySymbol, findInstruments, type Instrument } from "../../market/find-instruments.js";
import { currentQuotes } from "../../market/quotes.js";
import { demoAccountOf, READ_SCOPES } from "../demo-account.js";
import { tradingRepository } from "../trading.repository.js";
import { type LeverageConfig, leverageConfigs } from "./eligibility-rules.js";

/** At most this many instruments per request, ids and symbols together (upstream's limit). */
export const ELIGIBILITY_MAX = 100;

export interface EligibilityRequest {
  instrumentIds?: number[] | null | undefined;
  symbols?: string[] | null | undefined;
  currency?: string | undefined;
}

export interface Eligibility {
  instrument: Instrument;
  /** The most units one order may hold: the available cash at the highest leverage, at the ask. */
  maxUnitsPerOrder: number;
  leverageConfigs: LeverageConfig[];
}

export interface EligibilityResult {
  currency: "USD";
  eligibilities: Eligibility[];
  notFoundInstrumentIds: number[];
  notFoundSymbols: string[];
}

/**
 * The demo account's trading configuration for each named instrument (decision 0131). Instruments
 * named twice (by id and by symbol) appear once; unknown ones are listed apart.
 */
export async function checkEligibility(ctx: Ctx, req: EligibilityRequest): Promise<EligibilityResult> {
  const actor = requireUser(ctx.actor, READ_SCOPES);
  const ids = req.instrumentIds ?? [];
  const symbols = req.symbols ?? [];
  if (ids.length + symbols.length === 0) {
    throw invalid("instrumentIds", "or {symbols} must name at least one instrument");
  }
  if (ids.length + symbols.length > ELIGIBILITY_MAX) {
    throw invalid(
      "instrumentIds",
      `and {symbols} together must name at most ${ELIGIBILITY_MAX} instruments; got ${ids.length + symbols.length}`,
    );
  }
  const currency = req.currency ?? "USD";
  if (currency.toUpperCase() !== "USD")
    throw invalid("currency", `must be USD, the only currency supported; got ${currency}`);

  const found = await findInstruments(ctx, ids);
  const byId = new Map<number, Instrument>();
  const notFoundInstrumentIds: number[] = [];
  for (const id of ids) {
    const i = found.get(id);
    if (i) byId.set(id, i);
    else if (!notFoundInstrumentIds.includes(id)) notFoundInstrumentIds.push(id);
  }
  const notFoundSymbols: string[] = [];
  for (const symbol of symbols) {
    const i = await findInstrumentBySymbol(ctx, symbol);
    if (i) byId.set(i.instrumentId, i);
    else if (!notFoundSymbols.includes(symbol)) notFoundSymbols.push(symbol);
  }

  const account = await demoAccountOf(ctx, tradingRepository(ctx.db.kysely), actor);
  const instruments = [...byId.values()];
  const quotes = await currentQuotes(
    ctx,
    instruments.map((i) => i.instrumentId),
  );
  const eligibilities = instruments.map((instrument): Eligibility => {
    const ask = quotes.get(instrument.instrumentId)?.ask ?? 0;
    const top = Math.max(1, ...instrument.allowedLeverages);
    const maxUnits = ask > 0 ? Math.floor(((account.cashCents / 100) * top * 1e6) / ask) / 1e6 : 0;
    return { instrument, maxUnitsPerOrder: maxUnits, leverageConfigs: leverageConfigs(instrument) };
  });
  return { currency: "USD", eligibilities, notFoundInstrumentIds, notFoundSymbols };
}
