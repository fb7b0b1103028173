import { Type } from "typebox";

/** Upstream's `style: form, explode: false` int32 array: `1001,100000`. */
const idList = (description: string) =>
  Type.Optional(
    Type.String({
      pattern: "^\\s*\\d{1,10}(\\s*,\\s*\\d{1,10})*\\s*$",
      maxLength: 1100,
      description: `${description} (comma-separated)`,
    }),
  );

export const AggregatePortfolioQuery = Type.Object({
  conversionMode: Type.Optional(
    Type.Union([Type.Literal("eToroApp"), Type.Literal("Realtime")], {
      default: "eToroApp",
      description: "Accepted for upstream's sake: every amount here is in USD, so no conversion applies",
    }),
  ),
  instrumentIds: idList("Scope the aggregates to these instruments; the account totals stay whole"),
  mirrorIds: idList("Scope to these copies; 0 = the caller's own positions"),
});

const money = (description: string) => Type.Number({ description: `${description}, USD` });

const InstrumentAggregate = Type.Object({
  instrumentId: Type.Integer(),
  assetCurrency: Type.String(),
  totalMarginAccountCurrency: money("Σ margins"),
  totalFees: money("Σ overnight fees taken"),
  totalFeesAcctCcy: money("Σ overnight fees taken"),
  totalTaxes: money("Σ stamp duty paid"),
  totalTaxesAcctCcy: money("Σ stamp duty paid"),
  totalMarginAssetCurrency: money("Σ margins"),
  pnlAssetCurrency: Type.Union([Type.Number(), Type.Null()], { description: "Unrealized P/L, USD" }),
  accountCurrencyRoePercent: Type.Number({ description: "accountCurrencyReturn ÷ totalMargin × 100" }),
  netContracts: Type.Number(),
  netUnits: Type.Number({ description: "Long units minus short units" }),
  netCurrentExposureAssetCurrency: Type.Number(),
  netCurrentExposureAccountCurrency: Type.Number(),
  netInitialExposureAccountCurrency: Type.Number(),
  accountCurrencyReturn: money("Unrealized P/L"),
  liquidationValueAccountCurrency: money("totalMargin + accountCurrencyReturn"),
  liquidationValueAssetCurrency: money("totalMargin + accountCurrencyReturn"),
  avgLeverage: Type.Number({ description: "Margin-weighted" }),
  avgOpenRate: Type.Number({ description: "Units-weighted" }),
  netAvgOpenRate: Type.Number({ description: "Net initial exposure ÷ net units (0 when flat)" }),
  avgConversionRate: Type.Number(),
});

const MirrorAggregate = Type.Object({
  mirrorId: Type.Integer(),
  mirrorAvailableCash: money("Cash in the copy not in a position"),
  mirrorDepositTotal: money("Initial investment + funds added"),
  mirrorWithdrawalTotal: money("Funds taken out"),
  mirrorStopLossPercentage: Type.Number(),
  mirrorStopLoss: money("The copy's equity floor (0 = none)"),
  mirrorClosedPositionsPnl: money("Realized by the copy's closes"),
  mirrorTotals: Type.Object({
    mirrorNetFunding: money("Deposits − withdrawals"),
    mirrorPositionsPnl: money("Open P/L + closed P/L"),
    mirrorLiquidationValue: money("mirrorActiveMargin + mirrorPositionsPnl"),
    mirrorPositionsPnlPercent: Type.Number(),
    mirrorMarginPercent: Type.Number(),
    mirrorValuePercent: Type.Number(),
    mirrorActiveMargin: money("Available cash + Σ margins − closed P/L"),
  }),
  instrumentAggregates: Type.Array(InstrumentAggregate),
});

export const AggregatePortfolioResponse = Type.Object(
  {
    cid: Type.Integer(),
    timestamp: Type.String({ format: "date-time" }),
    accountCurrency: Type.String(),
    accountTotals: Type.Object({
      accountAvailableCash: money("Cash"),
      accountFrozenCash: money("Reserved by pending orders (entry orders reserve none)"),
      accountCurrentPnl: money("Own positions' P/L + every copy's mirrorPositionsPnl"),
      accountTotalValue: money("accountAvailableCash + accountTotalUsedMargin + accountCurrentPnl"),
      accountTotalUsedMargin: money("Own margins + frozen + every copy's active margin"),
      accountBalance: money("Available + frozen"),
    }),
    instrumentAggregates: Type.Array(InstrumentAggregate, {
      description: "The caller's own positions (not a copy's), one per instrument",
    }),
    mirrors: Type.Array(MirrorAggregate, { description: "The caller's copies" }),
  },
  { description: "The caller's demo portfolio aggregated by instrument" },
);
