import { requireUser } from "../../../core/access.js";
import { isoNow } from "../../../core/clock.js";
import { invalid, notFound, type Problem, validationFailed } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { findInstrumentBySymbol, findInstruments, type Instrument } from "../../market/find-instruments.js";
import { currentQuotes } from "../../market/quotes.js";
import { READ_SCOPES } from "../demo-account.js";
import { toCents, unitsFor } from "../math.js";
import { tradingRepository } from "../trading.repository.js";
import { nightlyFeeCents, sdrtCents, spreadCents } from "./costs-math.js";
import { overnightRatesOf, sdrtApplies, settlementOf } from "./fee-schedule.js";

export const COST_TYPES = [
  "markup",
  "marketSpread",
  "transactionFee",
  "overnightFee",
  "overWeekendFee",
  "sdrt",
] as const;
export type CostType = (typeof COST_TYPES)[number];

export interface CostsRequest {
  action: "open" | "close";
  transaction: "buy" | "sell" | "sellShort" | "buyToCover";
  symbol?: string | null | undefined;
  instrumentId?: number | null | undefined;
  settlementType?: "cfd" | "real" | "realFutures" | "marginTrade" | null | undefined;
  orderType?: "mkt" | "mit" | undefined;
  triggerRate?: number | null | undefined;
  leverage?: number | null | undefined;
  amount?: number | null | undefined;
  orderCurrency?: string | null | undefined;
  units?: number | null | undefined;
  contracts?: number | null | undefined;
  positionIds?: number[] | null | undefined;
}

export interface CostsResult {
  instrument: Instrument;
  /** Cents per cost type, in COST_TYPES order. */
  costs: { costType: CostType; cents: number }[];
  lastUpdated: string;
}

const has = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;

/** The open-side cost figures of `units` at the quote (pure; the properties test it). */
export function openCosts(
  instrument: Pick<Instrument, "assetTypeId" | "exchangeId">,
  terms: { isBuy: boolean; leverage: number; units: number; marginCents: number },
  quote: { bid: number; ask: number },
): Record<CostType, number> {
  const settlement = settlementOf(instrument.assetTypeId, terms.isBuy, terms.leverage);
  const rates = overnightRatesOf(instrument.assetTypeId);
  const nightly = settlement === "CFD" ? nightlyFeeCents(terms.marginCents * terms.leverage, terms.isBuy, rates) : 0;
  const rate = terms.isBuy ? quote.ask : quote.bid;
  return {
    // The quoted spread is the whole spread: no markup is added over it (decision 0130).
    markup: 0,
    marketSpread: spreadCents(terms.units, quote.bid, quote.ask),
    transactionFee: 0,
    overnightFee: nightly,
    overWeekendFee: rates.weekendTriple ? nightly * 3 : 0,
    sdrt: sdrtApplies(instrument.exchangeId, instrument.assetTypeId, terms.isBuy, terms.leverage)
      ? sdrtCents(Math.round(terms.units * rate * 100))
      : 0,
  };
}

/**
 * What an order would cost if executed now against the caller's demo account (decision 0130):
 * markup, spread, transaction fee, one night's and one weekend's fee, SDRT.
 */
export async function getCosts(ctx: Ctx, req: CostsRequest): Promise<CostsResult> {
  const actor = requireUser(ctx.actor, READ_SCOPES);
  const lastUpdated = isoNow(ctx.clock);
  if (req.action === "close") {
    const ids = req.positionIds ?? [];
    if (ids.length === 0) throw invalid("positionIds", "must name at least one position to close");
    const repo = tradingRepository(ctx.db.kysely);
    const positions = [];
    for (const id of new Set(ids)) {
      const p = Number.isSafeInteger(id) && id > 0 ? await repo.findPosition(id) : undefined;
      if (!p || p.userId !== actor.userId || p.status !== "open") throw notFound(`Position ${id}`);
      positions.push(p);
    }
    const instrumentIds = new Set(positions.map((p) => p.instrumentId));
    if (instrumentIds.size > 1) throw invalid("positionIds", "must name positions of one instrument");
    const instrument = (await findInstruments(ctx, [...instrumentIds])).get(positions[0]!.instrumentId);
    if (!instrument) throw notFound(`Instrument ${positions[0]!.instrumentId}`);
    // A close at the market pays nothing more: the spread was crossed at the open, and fees stop.
    return { instrument, costs: COST_TYPES.map((costType) => ({ costType, cents: 0 })), lastUpdated };
  }

  const problems: Problem[] = [];
  if (has(req.symbol) === has(req.instrumentId)) {
    problems.push({ field: "instrumentId", problem: "or {symbol} must be given for an open, exactly one of them" });
  }
  if (!has(req.leverage) || req.leverage < 1) {
    problems.push({ field: "leverage", problem: `must be at least 1 for an open; got ${req.leverage ?? "none"}` });
  }
  const sizes = [req.amount, req.units, req.contracts].filter(has).length;
  if (sizes !== 1) problems.push({ field: "amount", problem: "or {units} must be given, exactly one of them" });
  if (has(req.contracts))
    problems.push({ field: "contracts", problem: "is not supported: instruments here trade in units" });
  if (req.orderType === "mit") {
    problems.push({ field: "orderType", problem: "must be mkt: demo orders here execute at the market" });
  }
  if (has(req.orderCurrency) && req.orderCurrency.toUpperCase() !== "USD") {
    problems.push({ field: "orderCurrency", problem: `must be usd; got ${req.orderCurrency}` });
  }
  if (req.transaction === "sell" || req.transaction === "buyToCover") {
    problems.push({ field: "transaction", problem: `must be buy or sellShort for an open; got ${req.transaction}` });
  }
  if (problems.length > 0) throw validationFailed(problems);

  const instrument = has(req.instrumentId)
    ? (await findInstruments(ctx, [req.instrumentId])).get(req.instrumentId)
    : await findInstrumentBySymbol(ctx, req.symbol as string);
  if (!instrument) throw notFound(`Instrument ${req.instrumentId ?? req.symbol}`);
  const quote = (await currentQuotes(ctx, [instrument.instrumentId])).get(instrument.instrumentId);
  if (!quote) throw notFound(`Instrument ${instrument.instrumentId}`);

  const isBuy = req.transaction === "buy";
  const leverage = req.leverage as number;
  if (!instrument.allowedLeverages.includes(leverage)) {
    throw invalid(
      "leverage",
      `must be one of ${instrument.allowedLeverages.join(", ")} for ${instrument.symbol}; got ${leverage}`,
    );
  }
  const settlement = settlementOf(instrument.assetTypeId, isBuy, leverage);
  if (has(req.settlementType) && req.settlementType.toUpperCase() !== settlement) {
    throw invalid(
      "settlementType",
      `must be ${settlement.toLowerCase()} for this order (${isBuy ? "a buy" : "a short"} at leverage ${leverage}); got ${req.settlementType}`,
    );
  }
  const rate = isBuy ? quote.ask : quote.bid;
  let units: number;
  let marginCents: number;
  if (has(req.amount)) {
    const cents = toCents(req.amount);
    if (cents === null || cents <= 0)
      throw invalid("amount", `must be a positive amount of USD with at most 2 decimals; got ${req.amount}`);
    marginCents = cents;
    units = unitsFor(cents, leverage, rate);
  } else {
    units = req.units as number;
    if (!(units > 0) || !Number.isFinite(units))
      throw invalid("units", `must be a positive number of units; got ${units}`);
    marginCents = Math.round(((units * rate) / leverage) * 100);
  }
  const figures = openCosts(instrument, { isBuy, leverage, units, marginCents }, quote);
  return { instrument, costs: COST_TYPES.map((costType) => ({ costType, cents: figures[costType] })), lastUpdated };
}
