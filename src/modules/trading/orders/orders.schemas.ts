import { Type } from "typebox";
import { BoundedNumber, Int32, Int32Id } from "../../../http/schemas.js";

const MAGNITUDE = 1e9;
// `type: [x, "null"]` rather than anyOf (see ../trading.schemas.ts).
const nullable = <T>(type: "number" | "integer" | "string", description: string, extra: object = {}) =>
  Type.Optional(Type.Unsafe<T | null>({ type: [type, "null"], description, ...extra }));
const nullableNumber = (description: string) =>
  Type.Optional(
    Type.Unsafe<number | null>({ type: ["number", "null"], minimum: -MAGNITUDE, maximum: MAGNITUDE, description }),
  );
const nullableEnum = <T extends string>(values: T[], description: string) =>
  Type.Optional(Type.Unsafe<T | null>({ type: ["string", "null"], enum: [...values, null], description }));

/** upstream's UnifiedOrderRequest. */
export const UnifiedOrderBody = Type.Object(
  {
    action: Type.Union([Type.Literal("open"), Type.Literal("close")], {
      description: "open (close is not supported: 422)",
    }),
    transaction: Type.Union(
      [Type.Literal("buy"), Type.Literal("sell"), Type.Literal("sellShort"), Type.Literal("buyToCover")],
      { description: "buy opens a long; sell or sellShort a short" },
    ),
    symbol: nullable<string>("string", "The instrument's symbol (or give instrumentId)", { maxLength: 64 }),
    instrumentId: nullable<number>("integer", "The instrument (or give symbol; both must agree)", {
      minimum: 1,
      maximum: 2_147_483_647,
    }),
    settlementType: nullableEnum(["cfd", "real", "realFutures", "marginTrade"], "cfd only"),
    orderType: Type.Optional(
      Type.Union([Type.Literal("mkt"), Type.Literal("mit")], {
        description: "mkt executes at once; mit (market-if-touched) rests until the price reaches triggerRate",
      }),
    ),
    triggerRate: nullableNumber("mit only: below the ask for a buy, above the bid for a sell"),
    leverage: nullable<number>("integer", "One of the instrument's allowed leverages", { minimum: 1, maximum: 1000 }),
    amount: nullableNumber("USD of margin; exactly one of amount, units, contracts"),
    orderCurrency: nullable<string>("string", "usd", { maxLength: 8 }),
    units: nullableNumber("Units; exactly one of amount, units, contracts"),
    contracts: nullableNumber("Contracts, where the instrument defines a contract size (none here: 422)"),
    stopLossRate: nullableNumber("null or 0 = none"),
    takeProfitRate: nullableNumber("null or 0 = none"),
    stopLossType: nullableEnum(["fixed", "trailing"], "trailing: the stop follows the best price"),
    additionalMargin: nullableNumber("Not offered: must be absent"),
    positionIds: Type.Optional(
      Type.Unsafe<number[] | null>({
        type: ["array", "null"],
        items: { type: "integer", minimum: -2_147_483_648, maximum: 2_147_483_647 },
        maxItems: 100,
        description: "Close orders only (not offered)",
      }),
    ),
  },
  { description: "upstream's UnifiedOrderRequest" },
);

export const UnifiedOrderResponse = Type.Object({
  token: Type.String({ format: "uuid" }),
  orderId: Type.Integer(),
  referenceId: Type.String({ description: "The x-request-id the order was placed with" }),
});

export const CancelResponse = Type.Object({ token: Type.String({ format: "uuid" }) });

export const OrderIdParams = Type.Object({ orderId: Int32Id() });
export const PositionIdParams = Type.Object({ positionId: Int32Id() });

export const LookupQuery = Type.Object({
  orderId: Type.Optional(Int32Id({ description: "The order; exclusive with referenceId" })),
  referenceId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "The x-request-id the order was placed with" }),
  ),
});

const Execution = Type.Object({
  positionId: Type.Integer(),
  state: Type.String({ description: "open or closed" }),
  investedAmountCurrency: Type.Number(),
  initialExposureAccountCurrency: Type.Number(),
  initialExposureAssetCurrency: Type.Number(),
  addedFunds: Type.Number(),
  marginAccountCurrency: Type.Number(),
  marginAssetCurrency: Type.Number(),
  remainingUnits: Type.Number(),
  remainingContracts: Type.Null(),
  stopLossRate: Type.Union([Type.Number(), Type.Null()]),
  takeProfitRate: Type.Union([Type.Number(), Type.Null()]),
  openingData: Type.Object({
    openTime: Type.String({ format: "date-time" }),
    orderId: Type.Integer(),
    executionTime: Type.String({ format: "date-time" }),
    units: Type.Number(),
    contracts: Type.Null(),
    avgPrice: Type.Number(),
    avgConversionRate: Type.Number(),
    marketSpread: Type.Number(),
    markup: Type.Number(),
    priceId: Type.Integer(),
    fees: Type.Number(),
    taxes: Type.Number(),
  }),
});

/** upstream's GetOrderInfoResponse. */
export const LookupResponse = Type.Object({
  accountId: Type.Integer({ description: "The demo account number (CID)" }),
  gcid: Type.Integer(),
  portfolioId: Type.Integer(),
  orderId: Type.Integer(),
  action: Type.String({ description: "open or close" }),
  transaction: Type.String({ description: "buy, sellShort (opens); sell, buyToCover (closes)" }),
  type: Type.String({ description: "mkt or mit" }),
  etoroOrderTypeId: Type.Integer({ description: "17 market open, 19 market close, 1 entry (decision 0123)" }),
  status: Type.Object({
    id: Type.Integer({ description: "0 pending, 1 executed, 2 cancelled, 3 rejected, 4 expired" }),
    name: Type.String(),
    errorCode: Type.Integer(),
    errorMessage: Type.Union([Type.String(), Type.Null()]),
  }),
  asset: Type.Object({
    symbol: Type.String(),
    instrumentId: Type.Integer(),
    currency: Type.String(),
    settlementType: Type.String(),
    leverage: Type.Integer(),
    side: Type.String(),
  }),
  orderCurrency: Type.String(),
  requestedAmount: Type.Union([Type.Number(), Type.Null()]),
  requestedUnits: Type.Union([Type.Number(), Type.Null()]),
  requestedContracts: Type.Union([Type.Number(), Type.Null()]),
  frozenAmount: Type.Union([Type.Number(), Type.Null()], { description: "0: entry orders reserve no cash" }),
  requestedTriggerRate: Type.Union([Type.Number(), Type.Null()]),
  openStopLossRate: Type.Union([Type.Number(), Type.Null()]),
  openTakeProfitRate: Type.Union([Type.Number(), Type.Null()]),
  stopLossType: Type.Union([Type.String(), Type.Null()]),
  totalCosts: Type.Number(),
  positionsToClose: Type.Array(Type.Integer()),
  positionExecutions: Type.Array(Execution),
  requestTime: Type.String({ format: "date-time" }),
  lastUpdate: Type.String({ format: "date-time" }),
  openActionType: Type.String(),
  requestType: Type.String({ description: "byAmount, byUnits or byContracts" }),
});

/** v1's deprecated limit-orders body (market-if-touched). */
export const LimitOrderBody = Type.Object(
  {
    InstrumentID: Int32({ description: "Instrument to trade" }),
    IsBuy: Type.Boolean(),
    Leverage: Int32({ description: "One of the instrument's allowed leverages" }),
    Amount: nullableNumber("USD of margin; required unless AmountInUnits is given"),
    AmountInUnits: nullableNumber("Units; required unless Amount is given"),
    StopLossRate: nullableNumber("null or 0 = none"),
    TakeProfitRate: nullableNumber("null or 0 = none"),
    Rate: BoundedNumber(MAGNITUDE, { description: "The trigger: below the ask for a buy, above the bid for a sell" }),
    IsTslEnabled: Type.Optional(Type.Unsafe<boolean | null>({ type: ["boolean", "null"] })),
    IsNoStopLoss: Type.Optional(Type.Unsafe<boolean | null>({ type: ["boolean", "null"] })),
    IsNoTakeProfit: Type.Optional(Type.Unsafe<boolean | null>({ type: ["boolean", "null"] })),
  },
  { description: "Property names are matched case-insensitively" },
);

export const LimitOrderResponse = Type.Object({
  token: Type.String({ format: "uuid" }),
  orderID: Type.Integer({ description: "The entry order (to cancel or look up)" }),
});

/** Our own (decision 0126): absent keeps a value, null or 0 removes a rate. */
export const ExitsBody = Type.Object({
  stopLossRate: nullableNumber("The new stop-loss; null or 0 = none; absent = unchanged"),
  takeProfitRate: nullableNumber("The new take-profit; null or 0 = none; absent = unchanged"),
  stopLossType: Type.Optional(
    Type.Union([Type.Literal("fixed"), Type.Literal("trailing")], { description: "absent = unchanged" }),
  ),
});

export const ExitsResponse = Type.Object({
  positionId: Type.Integer(),
  stopLossRate: Type.Number({ description: "0 = none" }),
  takeProfitRate: Type.Number({ description: "0 = none" }),
  isTslEnabled: Type.Boolean(),
  token: Type.String({ format: "uuid" }),
});

/** upstream's Order (a pending order in the portfolio's `orders`). */
export const PendingOrder = Type.Object({
  orderId: Type.Integer(),
  cid: Type.Integer(),
  openDateTime: Type.String({ format: "date-time" }),
  instrumentId: Type.Integer(),
  isBuy: Type.Boolean(),
  takeProfitRate: Type.Number(),
  stopLossRate: Type.Number(),
  rate: Type.Number({ description: "The trigger price" }),
  amount: Type.Number(),
  leverage: Type.Integer(),
  units: Type.Number({ description: "> 0: the order opens these units rather than the amount" }),
  isTslEnabled: Type.Boolean(),
  executionType: Type.Integer(),
  isDiscounted: Type.Boolean(),
  isNoTakeProfit: Type.Boolean(),
  isNoStopLoss: Type.Boolean(),
});
