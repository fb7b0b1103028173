import { requireUser } from "../../../core/access.js";
import { AppError, type Problem, validationFailed } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { findInstrumentBySymbol, findInstruments, type Instrument } from "../../market/find-instruments.js";
import { settlementOf } from "../costs/fee-schedule.js";
import { TRADE_SCOPES } from "../demo-account.js";
import { placeEntryOrder } from "../entry-orders/place-entry-order.js";
import { type OpenOrderInput, openMarketOrder } from "../open-market-order.js";
import { sizeOf } from "./sizing.js";

/** upstream's UnifiedOrderRequest, as the schema admits it. */
export interface UnifiedOrder {
  action: "open" | "close";
  transaction: "buy" | "sell" | "sellShort" | "buyToCover";
  symbol?: string | null | undefined;
  instrumentId?: number | null | undefined;
  settlementType?: string | null | undefined;
  orderType?: "mkt" | "mit" | undefined;
  triggerRate?: number | null | undefined;
  leverage?: number | null | undefined;
  amount?: number | null | undefined;
  orderCurrency?: string | null | undefined;
  units?: number | null | undefined;
  contracts?: number | null | undefined;
  stopLossRate?: number | null | undefined;
  takeProfitRate?: number | null | undefined;
  stopLossType?: "fixed" | "trailing" | null | undefined;
  additionalMargin?: number | null | undefined;
  positionIds?: number[] | null | undefined;
}

export interface PlacedOrder {
  orderId: number;
  token: string;
  referenceId: string;
}

const present = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;

/**
 * v2's one order operation (createDemoOrder): an order to open, at market (`mkt`) through the
 * same open as v1's market orders, or resting until its trigger (`mit`) as v1's limit orders do.
 * Orders to close are not offered (upstream: "currently only orders to open a position are
 * supported"). The instrument is named by `instrumentId` or `symbol` (both must agree); an unknown
 * one is a 404. At most once per x-request-id, which is also the order's `referenceId`.
 */
export async function placeOrder(ctx: Ctx, requestId: string, body: UnifiedOrder): Promise<PlacedOrder> {
  requireUser(ctx.actor, TRADE_SCOPES);
  const problems: Problem[] = [];
  if (body.action !== "open") {
    problems.push({ field: "action", problem: `must be "open": only orders to open a position are supported` });
  }
  if (body.transaction === "buyToCover") {
    problems.push({ field: "transaction", problem: `must be "buy", "sell" or "sellShort" for an order to open` });
  }
  if (present(body.orderCurrency) && body.orderCurrency.toLowerCase() !== "usd") {
    problems.push({ field: "orderCurrency", problem: `must be "usd", the demo account's currency` });
  }
  if (present(body.additionalMargin)) {
    problems.push({ field: "additionalMargin", problem: "must be absent: additional margin is not offered" });
  }
  if (present(body.positionIds)) {
    problems.push({ field: "positionIds", problem: "must be absent for an order to open" });
  }
  if (!present(body.leverage)) problems.push({ field: "leverage", problem: "is required for an order to open" });
  const orderType = body.orderType ?? "mkt";
  if (orderType === "mit" && !present(body.triggerRate)) {
    problems.push({ field: "triggerRate", problem: `is required for a "mit" (market-if-touched) order` });
  }
  if (orderType === "mkt" && present(body.triggerRate)) {
    problems.push({ field: "triggerRate", problem: `must be absent for a "mkt" order (it executes at once)` });
  }
  if (!present(body.instrumentId) && !present(body.symbol)) {
    problems.push({ field: "instrumentId", problem: "is required unless {symbol} is given" });
  }
  if (problems.length > 0) throw validationFailed(problems);

  const instrument = await resolveInstrument(ctx, body.instrumentId ?? undefined, body.symbol ?? undefined);
  // The settlement is the order's, as eligibility and costs name it: an unleveraged buy of a
  // stock, ETF or coin is REAL, anything else a CFD (decision 0131); a client may state it.
  const settlement = settlementOf(instrument.assetTypeId, body.transaction === "buy", body.leverage as number);
  if (present(body.settlementType) && body.settlementType.toUpperCase() !== settlement) {
    throw validationFailed([
      {
        field: "settlementType",
        problem: `must be ${settlement.toLowerCase()} for this order (${body.transaction === "buy" ? "a buy" : "a short"} at leverage ${body.leverage}); got ${body.settlementType}`,
      },
    ]);
  }
  // The catalog simulates no futures: no instrument defines a contract size (decision 0125).
  const sizing = sizeOf(body, undefined, instrument.symbol);
  // The size is spread last: a field or a second spread after a spread costs a hidden class per
  // order (decision 0213).
  const input: OpenOrderInput = {
    instrumentId: instrument.instrumentId,
    isBuy: body.transaction === "buy",
    leverage: body.leverage as number,
    stopLossRate: body.stopLossRate,
    takeProfitRate: body.takeProfitRate,
    isTslEnabled: body.stopLossType === "trailing",
    ...sizing.size,
  };
  if (orderType === "mit") {
    const placed = await placeEntryOrder(
      ctx,
      requestId,
      { triggerRate: body.triggerRate as number, ...input },
      { requestType: sizing.requestType, requestedContracts: sizing.requestedContracts },
    );
    return { referenceId: requestId, ...placed };
  }
  const { order, token } = await openMarketOrder(ctx, requestId, input);
  return { orderId: order.orderId, token, referenceId: requestId };
}

async function resolveInstrument(ctx: Ctx, id: number | undefined, symbol: string | undefined): Promise<Instrument> {
  const byId = id !== undefined ? (await findInstruments(ctx, [id])).get(id) : undefined;
  const bySymbol = symbol !== undefined ? await findInstrumentBySymbol(ctx, symbol) : undefined;
  if (id !== undefined && !byId) throw new AppError("NotFound", `No instrument has id ${id}`);
  if (symbol !== undefined && !bySymbol) throw new AppError("NotFound", `No instrument has the symbol ${symbol}`);
  if (byId && bySymbol && byId.instrumentId !== bySymbol.instrumentId) {
    throw validationFailed([
      {
        field: "symbol",
        problem: `must name the instrument {instrumentId} names (${byId.symbol}); got ${JSON.stringify(symbol)}`,
      },
    ]);
  }
  return (byId ?? bySymbol)!;
}
