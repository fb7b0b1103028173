import { fromCents } from "../math.js";
import type { AggregatePortfolio, InstrumentAggregate, MirrorAggregate } from "./read-aggregate-portfolio.js";

/** A ratio as a percentage with two decimals; 0 when there is nothing to divide by. */
const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10000) / 100);

/** Everything is in USD, the account's and every instrument's currency here: conversions are 1. */
export function toInstrumentAggregate(a: InstrumentAggregate) {
  const margin = fromCents(a.marginCents);
  const pnl = fromCents(a.pnlCents);
  const liquidation = fromCents(a.marginCents + a.pnlCents);
  return {
    instrumentId: a.instrumentId,
    assetCurrency: "USD",
    totalMarginAccountCurrency: margin,
    totalFees: fromCents(a.feesCents),
    totalFeesAcctCcy: fromCents(a.feesCents),
    totalTaxes: fromCents(a.taxesCents),
    totalTaxesAcctCcy: fromCents(a.taxesCents),
    totalMarginAssetCurrency: margin,
    pnlAssetCurrency: pnl,
    accountCurrencyRoePercent: percent(a.pnlCents, a.marginCents),
    netContracts: a.netUnits,
    netUnits: a.netUnits,
    netCurrentExposureAssetCurrency: a.netCurrentExposure,
    netCurrentExposureAccountCurrency: a.netCurrentExposure,
    netInitialExposureAccountCurrency: a.netInitialExposure,
    accountCurrencyReturn: pnl,
    liquidationValueAccountCurrency: liquidation,
    liquidationValueAssetCurrency: liquidation,
    avgLeverage: a.avgLeverage,
    avgOpenRate: a.avgOpenRate,
    netAvgOpenRate: a.netAvgOpenRate,
    avgConversionRate: 1,
  };
}

/** Upstream's formulas (AggregatedPortfolioMirrorTotals), in cents. */
function mirrorCents(m: MirrorAggregate) {
  const activeMargin = m.availableCashCents + m.marginCents - m.closedPnlCents;
  const positionsPnl = m.openPnlCents + m.closedPnlCents;
  return { activeMargin, positionsPnl, liquidation: activeMargin + positionsPnl };
}

function accountCents(a: AggregatePortfolio) {
  const mirrors = a.allMirrors.map(mirrorCents);
  const usedMargin = a.manualMarginCents + a.frozenCents + mirrors.reduce((s, m) => s + m.activeMargin, 0);
  const currentPnl = a.manualPnlCents + mirrors.reduce((s, m) => s + m.positionsPnl, 0);
  const available = a.cashCents;
  return { available, usedMargin, currentPnl, totalValue: available + usedMargin + currentPnl };
}

function toMirrorAggregate(m: MirrorAggregate, account: ReturnType<typeof accountCents>) {
  const t = mirrorCents(m);
  return {
    mirrorId: m.mirrorId,
    mirrorAvailableCash: fromCents(m.availableCashCents),
    mirrorDepositTotal: fromCents(m.depositTotalCents),
    mirrorWithdrawalTotal: fromCents(m.withdrawalTotalCents),
    mirrorStopLossPercentage: percent(m.stopLossCents, t.liquidation),
    mirrorStopLoss: fromCents(m.stopLossCents),
    mirrorClosedPositionsPnl: fromCents(m.closedPnlCents),
    mirrorTotals: {
      mirrorNetFunding: fromCents(m.depositTotalCents - m.withdrawalTotalCents),
      mirrorPositionsPnl: fromCents(t.positionsPnl),
      mirrorLiquidationValue: fromCents(t.liquidation),
      mirrorPositionsPnlPercent: percent(t.positionsPnl, t.liquidation),
      mirrorMarginPercent: percent(t.activeMargin, account.usedMargin),
      mirrorValuePercent: percent(t.liquidation, account.totalValue),
      mirrorActiveMargin: fromCents(t.activeMargin),
    },
    instrumentAggregates: m.instruments.map(toInstrumentAggregate),
  };
}

export function toAggregatePortfolio(a: AggregatePortfolio) {
  const account = accountCents(a);
  return {
    cid: a.cid,
    timestamp: a.timestamp,
    accountCurrency: "USD",
    accountTotals: {
      accountAvailableCash: fromCents(account.available),
      accountFrozenCash: fromCents(a.frozenCents),
      accountCurrentPnl: fromCents(account.currentPnl),
      accountTotalValue: fromCents(account.totalValue),
      accountTotalUsedMargin: fromCents(account.usedMargin),
      accountBalance: fromCents(account.available + a.frozenCents),
    },
    instrumentAggregates: a.instruments.map(toInstrumentAggregate),
    mirrors: a.mirrors.map((m) => toMirrorAggregate(m, account)),
  };
}
