import { requireUser } from "../../core/access.js";
import type { UserActor } from "../../core/actor.js";
import { isoNow } from "../../core/clock.js";
import { AppError, type ErrorDetail } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import type { Quote } from "../../core/market.js";
import type { Ctx, Deps } from "../context.js";
import { demoCidOf } from "../identity/identity.view.js";
import { findInstruments, type Instrument } from "../market/find-instruments.js";
import { currentQuotes } from "../market/quotes.js";
import { demoAccountOf, ORDER_TYPE_OPEN, STATUS_EXECUTED, TRADE_SCOPES } from "./demo-account.js";
import { idempotently } from "./idempotency.js";
import { amountForUnits, fromCents, toCents, unitsFor } from "./math.js";
import { type TradingRepository, tradingRepository } from "./trading.repository.js";

/** The request, with wire names already translated (InstrumentID → instrumentId ...). */
export interface OpenOrderInput {
  instrumentId: number;
  isBuy: boolean;
  leverage: number;
  /** By amount: USD to invest. */
  amount?: number | undefined;
  /** By units: units to buy or sell. */
  units?: number | undefined;
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

const detail = (field: string, message: string): ErrorDetail => ({ field: `body/${field}`, message });
const fmt = (n: number) => String(Number(n.toFixed(10)));

/**
 * Opens a demo position at the current ask (long) or bid (short), debiting the margin in the
 * same transaction; at most once per x-request-id.
 */
export async function openMarketOrder(
  ctx: Ctx,
  requestId: string,
  input: OpenOrderInput,
  kind: "by-amount" | "by-units",
): Promise<OpenOrderResult> {
  const actor = requireUser(ctx.actor, TRADE_SCOPES);
  // Read before the transaction: on SQLite the transaction holds the only connection.
  const instrument = (await findInstruments(ctx, [input.instrumentId])).get(input.instrumentId);
  const quote = instrument ? (await currentQuotes(ctx, [input.instrumentId])).get(input.instrumentId) : undefined;

  return idempotently(ctx, { userId: actor.userId, requestId, operation: kind, input }, async (trx, record) => {
    const repo = tradingRepository(trx);
    const plan = validate(input, kind, instrument, quote);
    if (!(await debit(ctx, repo, actor, plan.amountCents))) {
      const account = await demoAccountOf(ctx, repo, actor);
      const field = kind === "by-amount" ? "Amount" : "AmountInUnits";
      throw new AppError("ValidationFailed", "The order costs more than the available cash", [
        detail(
          field,
          `needs ${fmt(fromCents(plan.amountCents))} USD but only ${fmt(fromCents(account.cashCents))} USD is available`,
        ),
      ]);
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
    const orderId = await repo.insertOrder({
      ...common,
      orderType: ORDER_TYPE_OPEN,
      statusId: STATUS_EXECUTED,
      requestedUnits: kind === "by-units" ? plan.units : null,
      rate: plan.rate,
      // Open orders name their position by id equality (positionId = orderId); see insertPosition.
      positionId: null,
      unitsToDeduct: null,
      token,
      openDateTime: now,
      lastUpdate: now,
    });
    const positionId = await repo.insertPosition({
      ...common,
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
    });
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
    const order: OrderForOpen = {
      orderId,
      positionId,
      instrumentId: plan.instrumentId,
      amountCents: plan.amountCents,
      units: plan.units,
      requestedUnits: kind === "by-units" ? plan.units : null,
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
    return { order, token };
  });
}

interface Plan {
  instrumentId: number;
  amountCents: number;
  units: number;
  rate: number;
  stopLossRate: number;
  takeProfitRate: number;
  isTslEnabled: boolean;
  tslGap: number;
}

/** Every rule of a demo order; all broken rules are reported together. */
export function validate(
  input: OpenOrderInput,
  kind: "by-amount" | "by-units",
  instrument: Instrument | undefined,
  quote: Quote | undefined,
): Plan {
  const problems: ErrorDetail[] = [];
  if (!instrument || !quote) {
    throw new AppError("ValidationFailed", `Instrument ${input.instrumentId} does not exist`, [
      detail("InstrumentID", `no instrument has id ${input.instrumentId}`),
    ]);
  }
  if (!instrument.allowedLeverages.includes(input.leverage)) {
    problems.push(
      detail(
        "Leverage",
        `${input.leverage} is not allowed for ${instrument.symbol}; use one of ${instrument.allowedLeverages.join(", ")}`,
      ),
    );
  }
  // Long opens at the ask and closes at the bid; short the reverse.
  const rate = input.isBuy ? quote.ask : quote.bid;
  const closeSide = input.isBuy ? quote.bid : quote.ask;
  const leverage = input.leverage > 0 ? input.leverage : 1;

  let amountCents = 0;
  let units = 0;
  if (kind === "by-amount") {
    const cents = toCents(input.amount ?? Number.NaN);
    if (cents === null || cents <= 0) {
      problems.push(detail("Amount", "must be a positive amount of USD with at most 2 decimals"));
    } else {
      amountCents = cents;
      units = unitsFor(cents, leverage, rate);
    }
  } else {
    const requested = input.units ?? Number.NaN;
    if (!Number.isFinite(requested) || requested <= 0) {
      problems.push(detail("AmountInUnits", "must be a positive number of units"));
    } else {
      units = requested;
      amountCents = amountForUnits(requested, leverage, rate);
    }
  }
  const minCents = Math.round(instrument.minAmount * 100);
  const sizeIsValid = units > 0;
  if (sizeIsValid && amountCents < minCents) {
    const field = kind === "by-amount" ? "Amount" : "AmountInUnits";
    problems.push(
      detail(
        field,
        `the position amount ${fmt(fromCents(amountCents))} USD is below the minimum of ${instrument.minAmount} USD for ${instrument.symbol}`,
      ),
    );
  }

  const stopLossRate = rateOrNone(input.stopLossRate, "StopLossRate", problems);
  const takeProfitRate = rateOrNone(input.takeProfitRate, "TakeProfitRate", problems);
  if (input.isNoStopLoss === true && stopLossRate > 0) {
    problems.push(detail("StopLossRate", "must be absent (or null) when IsNoStopLoss is true"));
  }
  if (input.isNoTakeProfit === true && takeProfitRate > 0) {
    problems.push(detail("TakeProfitRate", "must be absent (or null) when IsNoTakeProfit is true"));
  }
  // A stop-loss must be worse than the price the position would close at now, a take-profit
  // better than the price it opens at: neither may fire the moment the position opens.
  if (stopLossRate > 0) {
    if (input.isBuy && !(stopLossRate < closeSide)) {
      problems.push(detail("StopLossRate", `must be below the current bid ${fmt(closeSide)} for a buy`));
    }
    if (!input.isBuy && !(stopLossRate > closeSide)) {
      problems.push(detail("StopLossRate", `must be above the current ask ${fmt(closeSide)} for a sell`));
    }
  }
  if (takeProfitRate > 0) {
    if (input.isBuy && !(takeProfitRate > rate)) {
      problems.push(detail("TakeProfitRate", `must be above the current ask ${fmt(rate)} for a buy`));
    }
    if (!input.isBuy && !(takeProfitRate < rate)) {
      problems.push(detail("TakeProfitRate", `must be below the current bid ${fmt(rate)} for a sell`));
    }
  }
  const isTslEnabled = input.isTslEnabled === true;
  if (isTslEnabled && stopLossRate === 0) {
    problems.push(detail("IsTslEnabled", "a trailing stop-loss needs a StopLossRate to set its distance"));
  }
  if (problems.length > 0) {
    throw new AppError(
      "ValidationFailed",
      problems.map((p) => `${p.field.slice(5)} ${p.message}`).join("; "),
      problems,
    );
  }
  return {
    instrumentId: instrument.instrumentId,
    amountCents,
    units,
    rate,
    stopLossRate,
    takeProfitRate,
    isTslEnabled,
    tslGap: isTslEnabled ? Math.abs(closeSide - stopLossRate) : 0,
  };
}

/** null, absent and 0 all mean "none" (upstream reports none as 0); negatives are invalid. */
function rateOrNone(value: number | null | undefined, field: string, problems: ErrorDetail[]): number {
  if (value === null || value === undefined || value === 0) return 0;
  if (!Number.isFinite(value) || value < 0) {
    problems.push(detail(field, "must be a positive price, or null for none"));
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
  if (await repo.findAccount(actor.userId)) return false;
  await demoAccountOf(deps, repo, actor);
  return repo.debit(actor.userId, cents, at);
}
