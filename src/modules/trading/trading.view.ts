import { demoCidOf as demoCid } from "../identity/identity.view.js";
import type { ClosePositionResult } from "./close-position.js";
import { fromCents } from "./math.js";
import type { OpenOrderResult } from "./open-market-order.js";
import { toPendingOrder } from "./orders/orders.view.js";
import type { MirrorValue, OrderInfo, Portfolio, PositionValue } from "./read-account.js";
import type { TradeRow } from "./trading.repository.js";

export const toOpenOrder = ({ order, token }: OpenOrderResult) => ({
  orderForOpen: {
    instrumentID: order.instrumentId,
    amount: fromCents(order.amountCents),
    ...(order.requestedUnits !== null ? { amountInUnits: order.requestedUnits } : {}),
    isBuy: order.isBuy,
    leverage: order.leverage,
    stopLossRate: order.stopLossRate,
    takeProfitRate: order.takeProfitRate,
    isTslEnabled: order.isTslEnabled,
    mirrorID: 0,
    totalExternalCosts: 0,
    orderID: order.orderId,
    orderType: order.orderType,
    statusID: order.statusId,
    CID: order.cid,
    openDateTime: order.openDateTime,
    lastUpdate: order.lastUpdate,
    positionID: order.positionId,
    rate: order.rate,
    units: order.units,
  },
  token,
});

export const toCloseOrder = ({ order, token }: ClosePositionResult) => ({
  orderForClose: {
    positionID: order.positionId,
    instrumentID: order.instrumentId,
    unitsToDeduct: order.unitsToDeduct,
    orderID: order.orderId,
    orderType: order.orderType,
    statusID: order.statusId,
    CID: order.cid,
    openDateTime: order.openDateTime,
    lastUpdate: order.lastUpdate,
    closeRate: order.closeRate,
    netProfit: fromCents(order.netProfitCents),
  },
  token,
});

export function toPosition(v: PositionValue) {
  const p = v.position;
  const amount = fromCents(p.amountCents);
  const exposure = p.units * v.closeRate;
  return {
    positionID: p.positionId,
    CID: p.cid,
    openDateTime: p.openDateTime,
    openRate: p.openRate,
    instrumentID: p.instrumentId,
    mirrorID: p.mirrorId ?? 0,
    parentPositionID: p.parentPositionId ?? 0,
    isBuy: p.isBuy === 1,
    takeProfitRate: p.takeProfitRate,
    stopLossRate: v.stopLossRate,
    amount,
    leverage: p.leverage,
    orderID: p.orderId,
    orderType: 17,
    units: p.units,
    totalFees: fromCents(v.feesCents),
    initialAmountInDollars: fromCents(p.initialAmountCents),
    isTslEnabled: p.isTslEnabled === 1,
    stopLossVersion: p.version,
    isSettled: false,
    redeemStatusID: 0,
    initialUnits: p.initialUnits,
    isPartiallyAltered: p.units !== p.initialUnits,
    unitsBaseValueDollars: p.units * p.openRate,
    isDiscounted: false,
    openPositionActionType: 0,
    settlementTypeID: 0,
    isDetached: false,
    openConversionRate: 1,
    pnlVersion: 1,
    totalExternalFees: 0,
    totalExternalTaxes: fromCents(v.taxesCents),
    isNoTakeProfit: p.isNoTakeProfit === 1,
    isNoStopLoss: p.isNoStopLoss === 1 && v.stopLossRate === 0,
    lotCount: 0,
    unrealizedPnL: v.quote
      ? {
          pnL: fromCents(v.unrealizedPnlCents),
          pnlAssetCurrency: fromCents(v.unrealizedPnlCents),
          exposureInAccountCurrency: exposure,
          exposureInAssetCurrency: exposure,
          marginInAccountCurrency: amount,
          marginInAssetCurrency: amount,
          marginCurrencyId: 1,
          assetCurrencyId: 1,
          closeRate: v.closeRate,
          closeConversionRate: 1,
          timestamp: v.quote.date,
        }
      : null,
  };
}

function portfolioBody(p: Portfolio) {
  return {
    positions: p.positions.map(toPosition),
    credit: fromCents(p.account.cashCents),
    mirrors: p.mirrors.map((m) => toMirror(m, p.account.cid)),
    orders: p.orders.map(toPendingOrder),
    ordersForOpen: [],
    ordersForClose: [],
    ordersForCloseMultiple: [],
    stockOrders: [],
    entryOrders: [],
    exitOrders: [],
    bonusCredit: 0,
  };
}

/** A copy as upstream's portfolio shows it (copy trading, decision 0146). */
function toMirror({ mirror: m, positions }: MirrorValue, cid: number) {
  const value = m.availableCashCents + positions.reduce((s, p) => s + p.position.amountCents + p.unrealizedPnlCents, 0);
  return {
    mirrorID: m.mirrorId,
    CID: cid,
    parentCID: demoCid(m.parentGcid),
    stopLossPercentage: value > 0 ? (m.stopLossCents / value) * 100 : 0,
    isPaused: m.status === "paused",
    copyExistingPositions: false,
    availableAmount: fromCents(m.availableCashCents),
    stopLossAmount: fromCents(m.stopLossCents),
    initialInvestment: fromCents(m.initialInvestmentCents),
    depositSummary: fromCents(m.depositCents),
    withdrawalSummary: fromCents(m.withdrawalCents),
    positions: positions.map(toPosition),
    entryOrders: [],
    exitOrders: [],
    parentUsername: m.parentUsername,
    closedPositionsNetProfit: fromCents(m.closedPnlCents),
    startedCopyDate: m.startedAt,
    pendingForClosure: m.status === "stopping",
    parentMirrors: [],
    mirrorCalculationType: 0,
    ordersForOpen: [],
    ordersForClose: [],
    ordersForCloseMultiple: [],
  };
}

export const toPortfolio = (p: Portfolio) => ({ clientPortfolio: portfolioBody(p) });

export const toPnl = (p: Portfolio) => ({
  clientPortfolio: {
    ...portfolioBody(p),
    unrealizedPnL: fromCents(p.unrealizedPnlCents),
    accountCurrencyId: 1,
    invested: fromCents(p.investedCents),
    realizedPnL: fromCents(p.account.realizedPnlCents),
    equity: fromCents(p.account.cashCents + p.mirrorCashCents + p.investedCents + p.unrealizedPnlCents),
    startingBalance: fromCents(p.account.startingCents),
  },
});

export const toOrderInfo = ({ order, position }: OrderInfo) => ({
  token: order.token,
  orderID: order.orderId,
  CID: order.cid,
  referenceID: order.token,
  statusID: order.statusId,
  orderType: order.orderType,
  openActionType: 0,
  errorCode: 0,
  errorMessage: "",
  instrumentID: order.instrumentId,
  amount: fromCents(order.amountCents),
  units: order.units,
  requestOccurred: order.openDateTime,
  positions: position
    ? [
        {
          positionID: position.positionId,
          orderType: order.orderType,
          occurred: order.openDateTime,
          rate: order.rate,
          units: order.units,
          conversionRate: 1,
          amount: fromCents(order.amountCents),
          isOpen: position.status === "open",
        },
      ]
    : [],
});

export const toTrade = (t: TradeRow & { feesCents?: number }) => ({
  netProfit: fromCents(t.netProfitCents),
  closeRate: t.closeRate,
  closeTimestamp: t.closeDateTime,
  positionId: t.positionId,
  instrumentId: t.instrumentId,
  isBuy: t.isBuy === 1,
  leverage: t.leverage,
  openRate: t.openRate,
  openTimestamp: t.openDateTime,
  stopLossRate: t.stopLossRate,
  takeProfitRate: t.takeProfitRate,
  trailingStopLoss: t.isTslEnabled === 1,
  orderId: t.orderId,
  socialTradeId: 0,
  parentPositionId: 0,
  investment: fromCents(t.investmentCents),
  initialInvestment: fromCents(t.initialInvestmentCents),
  fees: fromCents(t.feesCents ?? 0),
  units: t.units,
  closeReason: t.closeReason,
});
