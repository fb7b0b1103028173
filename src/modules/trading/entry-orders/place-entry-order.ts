import { requireUser } from "../../../core/access.js";
import { isoNow } from "../../../core/clock.js";
import { AppError, type Problem, validationFailed } from "../../../core/errors.js";
import { newId } from "../../../core/ids.js";
import type { Quote } from "../../../core/market.js";
import type { Ctx } from "../../context.js";
import { demoCidOf } from "../../identity/identity.view.js";
import { findInstruments } from "../../market/find-instruments.js";
import { currentQuotes } from "../../market/quotes.js";
import { TRADE_SCOPES } from "../demo-account.js";
import { idempotently } from "../idempotency.js";
import { type OpenOrderInput, validate } from "../open-market-order.js";
import { ORDER_TYPE_ENTRY, ordersRepository, STATUS_PENDING } from "../orders/orders.repository.js";
import type { RequestType } from "../orders/sizing.js";

/** How long an entry order rests before it lapses (docs/decisions/0124). */
export const ENTRY_ORDER_LIFETIME_MS = 30 * 24 * 3_600_000;

export type EntryOrderInput = OpenOrderInput & { triggerRate: number };

export interface PlacedEntryOrder {
  orderId: number;
  token: string;
}

const fmt = (n: number) => String(Number(n.toFixed(10)));

/**
 * Places an entry (market-if-touched) order: it rests until the price reaches `triggerRate`,
 * then opens at market through the same open as a market order (./entry-watch.ts). Its terms are
 * the open's, checked now as if it opened at the trigger (the current spread kept); the trigger
 * must be better than the current price (below the ask for a buy, above the bid for a sell). No
 * cash is reserved: the open checks the cash when it fires (decision 0124). At most once per
 * x-request-id.
 */
export async function placeEntryOrder(
  ctx: Ctx,
  requestId: string,
  input: EntryOrderInput,
  sizing: { requestType: RequestType; requestedContracts: number | null },
): Promise<PlacedEntryOrder> {
  const actor = requireUser(ctx.actor, TRADE_SCOPES);
  const instrument = (await findInstruments(ctx, [input.instrumentId])).get(input.instrumentId);
  const quote = instrument ? (await currentQuotes(ctx, [input.instrumentId])).get(input.instrumentId) : undefined;
  if (!instrument || !quote) {
    throw validationFailed([
      { field: "instrumentId", problem: `must name an instrument; no instrument has id ${input.instrumentId}` },
    ]);
  }
  const problems: Problem[] = [];
  const t = input.triggerRate;
  const spread = quote.ask - quote.bid;
  let atTrigger: Quote = quote;
  if (!Number.isFinite(t) || t <= 0) {
    problems.push({ field: "triggerRate", problem: `must be a positive price; got ${t}` });
  } else if (input.isBuy && !(t < quote.ask)) {
    problems.push({
      field: "triggerRate",
      problem: `must be below the current ask ${fmt(quote.ask)} for a buy (an entry order waits for a better price)`,
    });
  } else if (!input.isBuy && !(t > quote.bid)) {
    problems.push({
      field: "triggerRate",
      problem: `must be above the current bid ${fmt(quote.bid)} for a sell (an entry order waits for a better price)`,
    });
  } else {
    atTrigger = input.isBuy ? { ...quote, ask: t, bid: t - spread } : { ...quote, bid: t, ask: t + spread };
  }
  let plan: ReturnType<typeof validate> | undefined;
  try {
    plan = validate(input, instrument, atTrigger);
  } catch (error) {
    if (!(error instanceof AppError) || !error.problems) throw error;
    problems.push(...error.problems);
  }
  if (problems.length > 0 || !plan) throw validationFailed(problems);
  const terms = plan;

  return idempotently(
    ctx,
    { userId: actor.userId, requestId, operation: "entry-order", input: { ...input, ...sizing } },
    async (trx, record) => {
      const now = isoNow(ctx.clock);
      const token = newId();
      const orderId = await ordersRepository(trx).insertEntryOrder({
        userId: actor.userId,
        cid: demoCidOf(actor.gcid),
        orderType: ORDER_TYPE_ENTRY,
        statusId: STATUS_PENDING,
        instrumentId: instrument.instrumentId,
        isBuy: input.isBuy ? 1 : 0,
        leverage: input.leverage,
        // What it would take and buy at the trigger; the open settles the real figures.
        amountCents: terms.amountCents,
        units: terms.units,
        requestedUnits: terms.requestedUnits,
        rate: t,
        stopLossRate: terms.stopLossRate,
        takeProfitRate: terms.takeProfitRate,
        isTslEnabled: terms.isTslEnabled ? 1 : 0,
        isNoStopLoss: terms.stopLossRate === 0 ? 1 : 0,
        isNoTakeProfit: terms.takeProfitRate === 0 ? 1 : 0,
        positionId: null,
        unitsToDeduct: null,
        token,
        referenceId: requestId,
        triggerRate: t,
        requestType: sizing.requestType,
        requestedContracts: sizing.requestedContracts,
        expiresAt: new Date(ctx.clock.now().getTime() + ENTRY_ORDER_LIFETIME_MS).toISOString(),
        errorMessage: null,
        openDateTime: now,
        lastUpdate: now,
      });
      record({
        type: "EntryOrderPlaced",
        userId: actor.userId,
        orderId,
        instrumentId: instrument.instrumentId,
        isBuy: input.isBuy,
        triggerRate: t,
        occurredAt: now,
      });
      return { orderId, token };
    },
  );
}
