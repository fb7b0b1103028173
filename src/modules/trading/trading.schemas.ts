import { Type } from "typebox";
import { BoundedNumber, Int32, Int32Id } from "../../http/schemas.js";
import { PendingOrder } from "./orders/orders.schemas.js";

/** Units, rates and USD amounts a request may carry: finite, and their products fit in cents. */
const MAGNITUDE = 1e9;

// `type: [x, "null"]` rather than anyOf: with type coercion on, Ajv would turn null into 0 / false
// while trying the first branch of an anyOf.
const nullableNumber = (description: string) =>
  Type.Optional(
    Type.Unsafe<number | null>({ type: ["number", "null"], minimum: -MAGNITUDE, maximum: MAGNITUDE, description }),
  );
const nullableBoolean = (description: string) =>
  Type.Optional(Type.Unsafe<boolean | null>({ type: ["boolean", "null"], description }));

const openFields = {
  InstrumentID: Int32({ description: "Instrument to trade" }),
  IsBuy: Type.Boolean({ description: "true for long, false for short" }),
  Leverage: Int32({ description: "One of the instrument's allowed leverages" }),
  StopLossRate: nullableNumber(
    "Closing trigger price; must be worse than the current price (below the bid for a buy, above the ask for a sell). null or 0 = none",
  ),
  TakeProfitRate: nullableNumber(
    "Closing trigger price; must be better than the current price (above the ask for a buy, below the bid for a sell). null or 0 = none",
  ),
  IsTslEnabled: nullableBoolean("Trailing stop-loss: the stop follows the best price reached at a constant gap"),
  IsNoStopLoss: nullableBoolean("true when no stop-loss is set (then StopLossRate must be absent)"),
  IsNoTakeProfit: nullableBoolean("true when no take-profit is set (then TakeProfitRate must be absent)"),
};

export const OpenByAmountBody = Type.Object(
  {
    ...openFields,
    Amount: BoundedNumber(MAGNITUDE, { description: "USD to invest (the margin), 2 decimals at most" }),
  },
  { description: "Property names are matched case-insensitively (InstrumentId = InstrumentID)" },
);

export const OpenByUnitsBody = Type.Object(
  { ...openFields, AmountInUnits: BoundedNumber(MAGNITUDE, { description: "Units to buy or sell" }) },
  { description: "Property names are matched case-insensitively (InstrumentId = InstrumentID)" },
);

export const CloseBody = Type.Object(
  {
    InstrumentID: Int32({ description: "The position's instrument" }),
    UnitsToDeduct: nullableNumber("Units to close; null or absent closes the whole position"),
  },
  { description: "Property names are matched case-insensitively" },
);

export const OrderForOpen = Type.Object({
  instrumentID: Type.Integer(),
  amount: Type.Number({ description: "USD invested (margin)" }),
  amountInUnits: Type.Optional(Type.Number({ description: "Units requested (by-units orders)" })),
  isBuy: Type.Boolean(),
  leverage: Type.Integer(),
  stopLossRate: Type.Number({ description: "0 = none" }),
  takeProfitRate: Type.Number({ description: "0 = none" }),
  isTslEnabled: Type.Boolean(),
  mirrorID: Type.Integer(),
  totalExternalCosts: Type.Number(),
  orderID: Type.Integer(),
  orderType: Type.Integer({ description: "17 = market order to open" }),
  statusID: Type.Integer({ description: "1 = executed" }),
  CID: Type.Integer({ description: "The account holder's customer id (gcid)" }),
  openDateTime: Type.String({ format: "date-time" }),
  lastUpdate: Type.String({ format: "date-time" }),
  positionID: Type.Integer({ description: "The position the order opened" }),
  rate: Type.Number({ description: "Execution price: the ask for a buy, the bid for a sell" }),
  units: Type.Number(),
});

export const OpenOrderResponse = Type.Object(
  {
    orderForOpen: OrderForOpen,
    token: Type.String({ format: "uuid", description: "Confirmation token of the order" }),
  },
  { description: "The executed order. A retry with the same x-request-id returns this again" },
);

export const CloseOrderResponse = Type.Object(
  {
    orderForClose: Type.Object({
      positionID: Type.Integer(),
      instrumentID: Type.Integer(),
      unitsToDeduct: Type.Number(),
      orderID: Type.Integer(),
      orderType: Type.Integer({ description: "19 = market order to close" }),
      statusID: Type.Integer({ description: "1 = executed" }),
      CID: Type.Integer(),
      openDateTime: Type.String({ format: "date-time" }),
      lastUpdate: Type.String({ format: "date-time" }),
      closeRate: Type.Number({ description: "The bid for a long, the ask for a short" }),
      netProfit: Type.Number({ description: "USD realised by this close" }),
    }),
    token: Type.String({ format: "uuid" }),
  },
  { description: "The executed close order" },
);

export const PositionIdParams = Type.Object({ positionId: Int32Id() });
export const OrderIdParams = Type.Object({ orderId: Int32Id() });

const UnrealizedPnL = Type.Object({
  pnL: Type.Number(),
  pnlAssetCurrency: Type.Number(),
  exposureInAccountCurrency: Type.Number(),
  exposureInAssetCurrency: Type.Number(),
  marginInAccountCurrency: Type.Number(),
  marginInAssetCurrency: Type.Number(),
  marginCurrencyId: Type.Integer(),
  assetCurrencyId: Type.Integer(),
  closeRate: Type.Number(),
  closeConversionRate: Type.Number(),
  timestamp: Type.String({ format: "date-time" }),
});

export const Position = Type.Object({
  positionID: Type.Integer(),
  CID: Type.Integer(),
  openDateTime: Type.String({ format: "date-time" }),
  openRate: Type.Number(),
  instrumentID: Type.Integer(),
  mirrorID: Type.Integer(),
  parentPositionID: Type.Integer(),
  isBuy: Type.Boolean(),
  takeProfitRate: Type.Number(),
  stopLossRate: Type.Number({ description: "In force now: a trailing stop's current level" }),
  amount: Type.Number(),
  leverage: Type.Integer(),
  orderID: Type.Integer(),
  orderType: Type.Integer(),
  units: Type.Number(),
  totalFees: Type.Number(),
  initialAmountInDollars: Type.Number(),
  isTslEnabled: Type.Boolean(),
  stopLossVersion: Type.Integer(),
  isSettled: Type.Boolean(),
  redeemStatusID: Type.Integer(),
  initialUnits: Type.Number(),
  isPartiallyAltered: Type.Boolean(),
  unitsBaseValueDollars: Type.Number(),
  isDiscounted: Type.Boolean(),
  openPositionActionType: Type.Integer(),
  settlementTypeID: Type.Integer(),
  isDetached: Type.Boolean(),
  openConversionRate: Type.Number(),
  pnlVersion: Type.Integer(),
  totalExternalFees: Type.Number(),
  totalExternalTaxes: Type.Number(),
  isNoTakeProfit: Type.Boolean(),
  isNoStopLoss: Type.Boolean(),
  lotCount: Type.Number(),
  unrealizedPnL: Type.Union([UnrealizedPnL, Type.Null()]),
});

const emptyList = (description: string) => Type.Array(Type.Object({}), { description, maxItems: 0 });

/** A copy (copy trading, decision 0146); its positions are not in `positions`. */
const Mirror = Type.Object({
  mirrorID: Type.Integer(),
  CID: Type.Integer(),
  parentCID: Type.Integer(),
  stopLossPercentage: Type.Number(),
  isPaused: Type.Boolean(),
  copyExistingPositions: Type.Boolean(),
  availableAmount: Type.Number({ description: "Cash in the copy not in a position, USD" }),
  stopLossAmount: Type.Number({ description: "The copy's equity floor, USD (0 = none)" }),
  initialInvestment: Type.Number(),
  depositSummary: Type.Number(),
  withdrawalSummary: Type.Number(),
  positions: Type.Array(Position),
  entryOrders: Type.Array(Type.Object({}), { maxItems: 0 }),
  exitOrders: Type.Array(Type.Object({}), { maxItems: 0 }),
  parentUsername: Type.String(),
  closedPositionsNetProfit: Type.Number(),
  startedCopyDate: Type.String({ format: "date-time" }),
  pendingForClosure: Type.Boolean(),
  parentMirrors: Type.Array(Type.Object({}), { maxItems: 0 }),
  mirrorCalculationType: Type.Integer(),
  ordersForOpen: Type.Array(Type.Object({}), { maxItems: 0 }),
  ordersForClose: Type.Array(Type.Object({}), { maxItems: 0 }),
  ordersForCloseMultiple: Type.Array(Type.Object({}), { maxItems: 0 }),
});

const portfolioFields = {
  positions: Type.Array(Position),
  credit: Type.Number({ description: "Available cash, USD" }),
  mirrors: Type.Array(Mirror, {
    description: "The caller's copies (agent portfolios and people), with their positions",
  }),
  orders: Type.Array(PendingOrder, { description: "Pending entry (market-if-touched) orders" }),
  ordersForOpen: emptyList("Pending market orders to open (they execute at once)"),
  ordersForClose: emptyList("Pending market orders to close (they execute at once)"),
  ordersForCloseMultiple: emptyList("Pending multiple closes"),
  stockOrders: emptyList("Pending stock orders"),
  entryOrders: emptyList("Pending entry orders"),
  exitOrders: emptyList("Pending exit orders"),
  bonusCredit: Type.Number(),
};

export const PortfolioResponse = Type.Object(
  { clientPortfolio: Type.Object(portfolioFields) },
  { description: "The caller's demo portfolio" },
);

export const PnlResponse = Type.Object(
  {
    clientPortfolio: Type.Object({
      ...portfolioFields,
      unrealizedPnL: Type.Number({ description: "Sum of the open positions' P/L at close-side prices, USD" }),
      accountCurrencyId: Type.Integer({ description: "1 = USD" }),
      invested: Type.Number({ description: "Margin held by open positions, USD" }),
      realizedPnL: Type.Number({ description: "P/L realised by every close so far, USD" }),
      equity: Type.Number({
        description: "credit + the copies' available cash + invested + unrealizedPnL, USD (copies included)",
      }),
      startingBalance: Type.Number({ description: "What the demo account started with, USD" }),
    }),
  },
  { description: "The caller's demo portfolio with profit and loss" },
);

export const OrderInfoResponse = Type.Object(
  {
    token: Type.String(),
    orderID: Type.Integer(),
    CID: Type.Integer(),
    referenceID: Type.String(),
    statusID: Type.Integer(),
    orderType: Type.Integer(),
    openActionType: Type.Integer(),
    errorCode: Type.Integer(),
    errorMessage: Type.String(),
    instrumentID: Type.Integer(),
    amount: Type.Number(),
    units: Type.Number(),
    requestOccurred: Type.String({ format: "date-time" }),
    positions: Type.Array(
      Type.Object({
        positionID: Type.Integer(),
        orderType: Type.Integer(),
        occurred: Type.String({ format: "date-time" }),
        rate: Type.Number(),
        units: Type.Number(),
        conversionRate: Type.Number(),
        amount: Type.Number(),
        isOpen: Type.Boolean(),
      }),
    ),
  },
  { description: "One of the caller's orders and the position it opened or closed" },
);

export const HistoryQuery = Type.Object({
  minDate: Type.Optional(Type.String({ format: "date", description: "Trades closed on or after this day (UTC)" })),
  page: Int32({ minimum: 1, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
});

export const HistoryResponse = Type.Array(
  Type.Object({
    netProfit: Type.Number(),
    closeRate: Type.Number(),
    closeTimestamp: Type.String({ format: "date-time" }),
    positionId: Type.Integer(),
    instrumentId: Type.Integer(),
    isBuy: Type.Boolean(),
    leverage: Type.Integer(),
    openRate: Type.Number(),
    openTimestamp: Type.String({ format: "date-time" }),
    stopLossRate: Type.Number(),
    takeProfitRate: Type.Number(),
    trailingStopLoss: Type.Boolean(),
    orderId: Type.Integer(),
    socialTradeId: Type.Integer(),
    parentPositionId: Type.Integer(),
    investment: Type.Number(),
    initialInvestment: Type.Number(),
    fees: Type.Number(),
    units: Type.Number(),
    closeReason: Type.String({ description: "Manual, StopLoss, TakeProfit or TrailingStopLoss" }),
  }),
  { description: "Closed trades, newest first (a partial close is a trade of its own)" },
);
