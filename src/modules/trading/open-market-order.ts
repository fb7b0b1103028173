import { requireUser } from "../../core/access.js";
import type { UserActor } from "../../core/actor.js";
import { isoNow } from "../../core/clock.js";
import { invalid, listOf, type Problem, validationFailed } from "../../core/errors.js";
import type { DomainEvent } from "../../core/events.js";
import { newId } from "../../core/ids.js";
import type { Quote } from "../../core/market.js";
import type { Executor } from "../../infra/db/executor.js";
import type { Ctx, Deps } from "../context.js";
import { demoCidOf } from "../identity/identity.view.js";
import { findInstruments, type Instrument } from "../market/find-instruments.js";
import { assertMarketOpen } from "../market/hours/market-open.js";
import { currentQuotes } from "../market/quotes.js";
import { sdrtCents } from "./costs/costs-math.js";
import { sdrtApplies } from "./costs/fee-schedule.js";
import { overnightFeesRepository } from "./costs/overnight-fees.repository.js";
import { demoAccountOf, ORDER_TYPE_OPEN, STATUS_EXECUTED, TRADE_SCOPES } from "./demo-account.js";
import { slTpBandProblems } from "./eligibility/eligibility-rules.js";
import { idempotently } from "./idempotency.js";
import { amountForUnits, fromCents, toCents, unitsFor } from "./math.js";
import { type TradingRepository, tradingRepository } from "./trading.repository.js";

/** How big the position is: `amount` USD of margin, or `units` of the instrument; never both. */
export type OrderSize = { amount: number; units?: never } | { units: number; amount?: never };

/** The request, with wire names already translated (InstrumentID → instrumentId ...). */
export type OpenOrderInput = OrderTerms & OrderSize;

export interface OrderTerms {
  instrumentId: number;
  isBuy: boolean;
  leverage: number;
  stopLossRate?: number | null | undefined;
  takeProfitRate?: number | null | undefined;
  isTslEnabled?: boolean | null | undefined;
  isNoStopLoss?: boolean | null | undefined;
  isNoTakeProfit?: boolean | null | undefined;
}

export interface OrderForOpen {
  orderId: number;
  positionId: number;
  instrumentId: number;
  amountCents: number;
  units: number;
  requestedUnits: number | null;
  isBuy: boolean;
  leverage: number;
  rate: number;
  stopLossRate: number;
  takeProfitRate: number;
  isTslEnabled: boolean;
  isNoStopLoss: boolean;
  isNoTakeProfit: boolean;
  orderType: number;
  statusId: number;
  cid: number;
  openDateTime: string;
  lastUpdate: string;
}

export interface OpenOrderResult {
  order: OrderForOpen;
  token: string;
}

const fmt = (n: number) => String(Number(n.toFixed(10)));

export interface OpenOptions {
  /**
   * Runs in the open's transaction once the order and position are written (an entry order that
   * fires marks itself executed here, so both commit or neither does; throwing rolls back the open).
   */
  onOpened?(trx: Executor, record: (event: DomainEvent) => void, order: OrderForOpen): Promise<void>;
}

/**
 * Opens a demo position at the current ask (long) or bid (short), debiting the margin in the
 * same transaction; at most once per x-request-id.
 */
export async function openMarketOrder(
  ctx: Ctx,
  requestId: string,
  input: OpenOrderInput,
  options: OpenOptions = {},
): Promise<OpenOrderResult> {
  const actor = requireUser(ctx.actor, TRADE_SCOPES);
  // Read before the transaction: on SQLite the transaction holds the only connection.
  const instrument = (await findInstruments(ctx, [input.instrumentId])).get(input.instrumentId);
  const quote = instrument ? (await currentQuotes(ctx, [input.instrumentId])).get(input.instrumentId) : undefined;

  // The operation keeps the names it had when orders were told apart by a kind: stored request
  // hashes stay valid.
  const operation = input.units === undefined ? "by-amount" : "by-units";
  return idempotently(ctx, { userId: actor.userId, requestId, operation, input }, async (trx, record) => {
    const repo = tradingRepository(trx);
    const plan = validate(input, instrument, quote);
    // Market hours and the stop-loss / take-profit bands (decisions 0129, 0131).
    if (instrument) assertMarketOpen(ctx, instrument);
    const bands = slTpBandProblems({
      assetTypeId: instrument?.assetTypeId ?? 0,
      isBuy: input.isBuy,
      leverage: input.leverage,
      rate: plan.rate,
      stopLossRate: plan.stopLossRate,
      takeProfitRate: plan.takeProfitRate,
    });
    if (bands.length > 0) throw validationFailed(bands);
    // SDRT on buying real UK shares is taken with the margin (decision 0130).
    const taxCents =
      instrument && sdrtApplies(instrument.exchangeId, instrument.assetTypeId, input.isBuy, input.leverage)
        ? sdrtCents(Math.round(plan.units * plan.rate * 100))
        : 0;
    if (!(await debit(ctx, repo, actor, plan.amountCents + taxCents))) {
      const account = await demoAccountOf(ctx, repo, actor);
      const cash = `the available cash, ${fmt(fromCents(account.cashCents))} USD`;
      const cost = fmt(fromCents(plan.amountCents + taxCents));
      throw input.units === undefined
        ? invalid("amount", `must be at most ${cash}; got ${cost} USD`)
        : invalid("units", `must cost at most ${cash}; ${fmt(plan.units)} units cost ${cost} USD`);
    }
    const now = isoNow(ctx.clock);
    const token = newId();
    const common = {
      userId: actor.userId,
      cid: demoCidOf(actor.gcid),
      instrumentId: plan.instrumentId,
      isBuy: input.isBuy ? 1 : 0,
      leverage: input.leverage,
      amountCents: plan.amountCents,
      units: plan.units,
      stopLossRate: plan.stopLossRate,
      takeProfitRate: plan.takeProfitRate,
      isTslEnabled: plan.isTslEnabled ? 1 : 0,
      isNoStopLoss: plan.stopLossRate === 0 ? 1 : 0,
      isNoTakeProfit: plan.takeProfitRate === 0 ? 1 : 0,
    };
    // The shared part is spread last: fields written after a spread give each object a hidden class
    // of its own on Node 20's V8, a new one per order (decision 0213).
    const orderId = await repo.insertOrder({
      orderType: ORDER_TYPE_OPEN,
      statusId: STATUS_EXECUTED,
      requestedUnits: plan.requestedUnits,
      rate: plan.rate,
      // Open orders name their position by id equality (positionId = orderId); see insertPosition.
      positionId: null,
      unitsToDeduct: null,
      token,
      referenceId: requestId,
      openDateTime: now,
      lastUpdate: now,
      ...common,
    });
    const positionId = await repo.insertPosition({
      positionId: orderId,
      orderId,
      initialAmountCents: plan.amountCents,
      initialUnits: plan.units,
      openRate: plan.rate,
      openDateTime: now,
      tslGap: plan.tslGap,
      status: "open",
      version: 1,
      lastUpdate: now,
      ...common,
    });
    if (taxCents > 0) {
      await overnightFeesRepository(trx).recordTax({ positionId, userId: actor.userId, taxCents, chargedAt: now });
    }
    record({
      type: "PositionOpened",
      userId: actor.userId,
      positionId,
      instrumentId: plan.instrumentId,
      isBuy: input.isBuy,
      openRate: plan.rate,
      stopLossRate: plan.stopLossRate,
      takeProfitRate: plan.takeProfitRate,
      isTslEnabled: plan.isTslEnabled,
      tslGap: plan.tslGap,
      occurredAt: now,
    });
    record({
      type: "OrderExecuted",
      userId: actor.userId,
      order: {
        orderId,
        orderType: ORDER_TYPE_OPEN,
        statusId: STATUS_EXECUTED,
        cid: demoCidOf(actor.gcid),
        instrumentId: plan.instrumentId,
        positionId,
        isBuy: input.isBuy,
        leverage: input.leverage,
        amountCents: plan.amountCents,
        units: plan.units,
        requestedUnits: plan.requestedUnits,
        rate: plan.rate,
        stopLossRate: plan.stopLossRate,
        takeProfitRate: plan.takeProfitRate,
        isTslEnabled: plan.isTslEnabled,
        token,
        openDateTime: now,
      },
      occurredAt: now,
    });
    const order: OrderForOpen = {
      orderId,
      positionId,
      instrumentId: plan.instrumentId,
      amountCents: plan.amountCents,
      units: plan.units,
      requestedUnits: plan.requestedUnits,
      isBuy: input.isBuy,
      leverage: input.leverage,
      rate: plan.rate,
      stopLossRate: plan.stopLossRate,
      takeProfitRate: plan.takeProfitRate,
      isTslEnabled: plan.isTslEnabled,
      isNoStopLoss: plan.stopLossRate === 0,
      isNoTakeProfit: plan.takeProfitRate === 0,
      orderType: ORDER_TYPE_OPEN,
      statusId: STATUS_EXECUTED,
      cid: demoCidOf(actor.gcid),
      openDateTime: now,
      lastUpdate: now,
    };
    await options.onOpened?.(trx, record, order);
    return { order, token };
  });
}

interface Plan {
  instrumentId: number;
  amountCents: number;
  units: number;
  /** The units asked for (by-units orders), else null. */
  requestedUnits: number | null;
  rate: number;
  stopLossRate: number;
  takeProfitRate: number;
  isTslEnabled: boolean;
  tslGap: number;
}

/**
 * Every rule of a demo order; all broken rules are reported together. The body's schema checks
 * only types: whether an amount, a number of units or a rate is acceptable depends on the
 * instrument and the current price, and the positivity checks guard money for every caller.
 */
export function validate(input: OpenOrderInput, instrument: Instrument | undefined, quote: Quote | undefined): Plan {
  const problems: Problem[] = [];
  if (!instrument || !quote) {
    throw invalid("instrumentId", `must name an instrument; no instrument has id ${input.instrumentId}`);
  }
  if (!instrument.allowedLeverages.includes(input.leverage)) {
    problems.push({
      field: "leverage",
      problem: `must be one of ${listOf(instrument.allowedLeverages.map(String))} for ${instrument.symbol}; got ${input.leverage}`,
    });
  }
  // Long opens at the ask and closes at the bid; short the reverse.
  const rate = input.isBuy ? quote.ask : quote.bid;
  const closeSide = input.isBuy ? quote.bid : quote.ask;
  const leverage = input.leverage > 0 ? input.leverage : 1;

  let amountCents = 0;
  let units = 0;
  if (input.units === undefined) {
    const cents = toCents(input.amount);
    if (cents === null || cents <= 0) {
      problems.push({
        field: "amount",
        problem: `must be a positive amount of USD with at most 2 decimals; got ${input.amount}`,
      });
    } else {
      amountCents = cents;
      units = unitsFor(cents, leverage, rate);
    }
  } else if (!Number.isFinite(input.units) || input.units <= 0) {
    problems.push({ field: "units", problem: `must be a positive number of units; got ${input.units}` });
  } else {
    units = input.units;
    amountCents = amountForUnits(input.units, leverage, rate);
    // Cents are a bigint column: a margin beyond 2^53 cents is no demo order (and no number).
    if (!Number.isSafeInteger(amountCents)) problems.push({ field: "units", problem: "is too large" });
  }
  const minCents = Math.round(instrument.minAmount * 100);
  if (units > 0 && amountCents < minCents) {
    const minimum = `${instrument.minAmount} USD (the minimum position amount for ${instrument.symbol})`;
    const got = fmt(fromCents(amountCents));
    problems.push(
      input.units === undefined
        ? { field: "amount", problem: `must be at least ${minimum}; got ${got} USD` }
        : {
            field: "units",
            problem: `must come to a margin of at least ${minimum}; ${fmt(units)} units come to ${got} USD`,
          },
    );
  }

  const exits = exitsFor(input, rate, closeSide, problems);
  if (problems.length > 0) throw validationFailed(problems);
  return {
    instrumentId: instrument.instrumentId,
    amountCents,
    units,
    requestedUnits: input.units === undefined ? null : units,
    rate,
    ...exits,
  };
}

export interface Exits {
  stopLossRate: number;
  takeProfitRate: number;
  isTslEnabled: boolean;
  tslGap: number;
}

/**
 * The stop-loss, take-profit and trailing rules of an order, against the price it would open at
 * (`rate`) and close at (`closeSide`) now; also the rules of a change to an open position's exits.
 */
export function exitsFor(
  input: Pick<
    OrderTerms,
    "isBuy" | "stopLossRate" | "takeProfitRate" | "isTslEnabled" | "isNoStopLoss" | "isNoTakeProfit"
  >,
  rate: number,
  closeSide: number,
  problems: Problem[],
): Exits {
  const stopLossRate = rateOrNone(input.stopLossRate, "stopLossRate", problems);
  const takeProfitRate = rateOrNone(input.takeProfitRate, "takeProfitRate", problems);
  if (input.isNoStopLoss === true && stopLossRate > 0) {
    problems.push({ field: "stopLossRate", problem: "must be absent (or null) when {isNoStopLoss} is true" });
  }
  if (input.isNoTakeProfit === true && takeProfitRate > 0) {
    problems.push({ field: "takeProfitRate", problem: "must be absent (or null) when {isNoTakeProfit} is true" });
  }
  // A stop-loss must be worse than the price the position would close at now, a take-profit
  // better than the price it opens at: neither may fire the moment the position opens.
  if (stopLossRate > 0) {
    if (input.isBuy && !(stopLossRate < closeSide)) {
      problems.push({ field: "stopLossRate", problem: `must be below the current bid ${fmt(closeSide)} for a buy` });
    }
    if (!input.isBuy && !(stopLossRate > closeSide)) {
      problems.push({ field: "stopLossRate", problem: `must be above the current ask ${fmt(closeSide)} for a sell` });
    }
  }
  if (takeProfitRate > 0) {
    if (input.isBuy && !(takeProfitRate > rate)) {
      problems.push({ field: "takeProfitRate", problem: `must be above the current ask ${fmt(rate)} for a buy` });
    }
    if (!input.isBuy && !(takeProfitRate < rate)) {
      problems.push({ field: "takeProfitRate", problem: `must be below the current bid ${fmt(rate)} for a sell` });
    }
  }
  const isTslEnabled = input.isTslEnabled === true;
  if (isTslEnabled && stopLossRate === 0) {
    problems.push({
      field: "isTslEnabled",
      problem: "needs a {stopLossRate}: a trailing stop-loss takes its distance from it",
    });
  }
  return { stopLossRate, takeProfitRate, isTslEnabled, tslGap: isTslEnabled ? Math.abs(closeSide - stopLossRate) : 0 };
}

/** null, absent and 0 all mean "none" (upstream reports none as 0); negatives are invalid. */
function rateOrNone(value: number | null | undefined, field: string, problems: Problem[]): number {
  if (value === null || value === undefined || value === 0) return 0;
  if (!Number.isFinite(value) || value < 0) {
    problems.push({ field, problem: `must be a positive price, or null for none; got ${value}` });
    return 0;
  }
  return value;
}

/**
 * The guarded debit (cash >= amount). The account is opened on first use, so a first order
 * creates it and debits again; false = not enough cash.
 */
async function debit(deps: Deps, repo: TradingRepository, actor: UserActor, cents: number): Promise<boolean> {
  const at = isoNow(deps.clock);
  if (await repo.debit(actor.userId, cents, at)) return true;
  // No account, or too little cash. The account may also have been made meanwhile by the
  // caller's concurrent first order (PostgreSQL, read committed): the debit above did not see it,
  // the next statement does. So the debit is tried again whenever the account exists now, never
  // refused on what an earlier statement saw (found by the fault tests' concurrent load).
  await demoAccountOf(deps, repo, actor);
  return repo.debit(actor.userId, cents, at);
}
