import { ORDER_TYPE_CLOSE } from "../demo-account.js";
import { fromCents } from "../math.js";
import type { OrderRow } from "../trading.repository.js";
import type { OrderLookup } from "./lookup-order.js";

const STATUS_NAMES: Record<number, string> = {
  0: "Pending",
  1: "Executed",
  2: "Cancelled",
  3: "Rejected",
  4: "Expired",
};

const requestTypeOf = (o: OrderRow) => o.requestType ?? (o.requestedUnits !== null ? "byUnits" : "byAmount");

/** upstream's GetOrderInfoResponse of one order of the book. */
export function toLookup({ order: o, symbol, settlementType, gcid, position: p, openOrder }: OrderLookup) {
  const isClose = o.orderType === ORDER_TYPE_CLOSE;
  const isBuy = o.isBuy === 1;
  const requestType = requestTypeOf(o);
  return {
    accountId: o.cid,
    gcid,
    portfolioId: 1,
    orderId: o.orderId,
    action: isClose ? "close" : "open",
    transaction: isClose ? (isBuy ? "sell" : "buyToCover") : isBuy ? "buy" : "sellShort",
    type: o.triggerRate !== null ? "mit" : "mkt",
    etoroOrderTypeId: o.orderType,
    status: {
      id: o.statusId,
      name: STATUS_NAMES[o.statusId] ?? "Unknown",
      errorCode: o.errorMessage ? 1 : 0,
      errorMessage: o.errorMessage ?? null,
    },
    asset: {
      symbol,
      instrumentId: o.instrumentId,
      currency: "USD",
      settlementType: settlementType.toLowerCase(),
      leverage: o.leverage,
      side: isBuy ? "long" : "short",
    },
    orderCurrency: "usd",
    requestedAmount: !isClose && requestType === "byAmount" ? fromCents(o.amountCents) : null,
    requestedUnits: isClose ? o.unitsToDeduct : o.requestedUnits,
    requestedContracts: o.requestedContracts,
    frozenAmount: 0,
    requestedTriggerRate: o.triggerRate,
    openStopLossRate: o.stopLossRate,
    openTakeProfitRate: o.takeProfitRate,
    stopLossType: o.stopLossRate > 0 ? (o.isTslEnabled === 1 ? "trailing" : "fixed") : null,
    totalCosts: 0,
    positionsToClose: isClose && o.positionId !== null ? [o.positionId] : [],
    positionExecutions: p
      ? [
          {
            positionId: p.positionId,
            state: p.status,
            investedAmountCurrency: fromCents(p.initialAmountCents),
            initialExposureAccountCurrency: p.initialUnits * p.openRate,
            initialExposureAssetCurrency: p.initialUnits * p.openRate,
            addedFunds: 0,
            marginAccountCurrency: fromCents(p.amountCents),
            marginAssetCurrency: fromCents(p.amountCents),
            remainingUnits: p.units,
            remainingContracts: null,
            stopLossRate: p.stopLossRate,
            takeProfitRate: p.takeProfitRate,
            openingData: {
              openTime: openOrder?.openDateTime ?? p.openDateTime,
              orderId: p.orderId,
              executionTime: p.openDateTime,
              units: p.initialUnits,
              contracts: null,
              avgPrice: p.openRate,
              avgConversionRate: 1,
              marketSpread: 0,
              markup: 0,
              priceId: 0,
              fees: 0,
              taxes: 0,
            },
          },
        ]
      : [],
    requestTime: o.openDateTime,
    lastUpdate: o.lastUpdate,
    openActionType: "customer",
    requestType,
  };
}

/** upstream's Order: one pending order of the portfolio's `orders`. */
export const toPendingOrder = (o: OrderRow) => ({
  orderId: o.orderId,
  cid: o.cid,
  openDateTime: o.openDateTime,
  instrumentId: o.instrumentId,
  isBuy: o.isBuy === 1,
  takeProfitRate: o.takeProfitRate,
  stopLossRate: o.stopLossRate,
  rate: o.triggerRate ?? o.rate,
  amount: fromCents(o.amountCents),
  leverage: o.leverage,
  units: o.requestedUnits ?? 0,
  isTslEnabled: o.isTslEnabled === 1,
  executionType: 0,
  isDiscounted: false,
  isNoTakeProfit: o.isNoTakeProfit === 1,
  isNoStopLoss: o.isNoStopLoss === 1,
});
