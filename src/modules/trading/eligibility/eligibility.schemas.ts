import { Type } from "typebox";
import { Int32 } from "../../../http/schemas.js";
import { ELIGIBILITY_MAX } from "./check-eligibility.js";

// `type: [array, "null"]`: with type coercion on, Ajv would turn null into [] in an anyOf.
export const EligibilityBody = Type.Object({
  instrumentIds: Type.Optional(
    Type.Unsafe<number[] | null>({
      type: ["array", "null"],
      items: Int32(),
      maxItems: ELIGIBILITY_MAX + 1,
      description: `Instrument ids to check; with symbols at most ${ELIGIBILITY_MAX} together`,
    }),
  ),
  symbols: Type.Optional(
    Type.Unsafe<string[] | null>({
      type: ["array", "null"],
      items: { type: "string", maxLength: 100 },
      maxItems: ELIGIBILITY_MAX + 1,
      description: "Instrument symbols to check (any case)",
    }),
  ),
  currency: Type.Optional(Type.String({ maxLength: 10, default: "USD", description: "Only USD is supported" })),
});

const LeverageConfiguration = Type.Object({
  settlementType: Type.String({ description: "CFD or REAL (a non-leveraged long of a stock, ETF or coin)" }),
  direction: Type.String({ description: "LONG or SHORT" }),
  leverageValues: Type.Array(Type.Integer()),
  isPotential: Type.Boolean(),
  minPositionAmount: Type.Number(),
  allowEditStopLoss: Type.Boolean(),
  minStopLossPercentage: Type.Number(),
  maxStopLossPercentage: Type.Number(),
  defaultStopLossPercentage: Type.Number(),
  allowEditTakeProfit: Type.Boolean(),
  minTakeProfitPercentage: Type.Number(),
  maxTakeProfitPercentage: Type.Number(),
  defaultTakeProfitPercentage: Type.Number(),
  allowStopLossTakeProfit: Type.Boolean(),
});

const nullableNumber = Type.Union([Type.Number(), Type.Null()]);

const InstrumentEligibility = Type.Object({
  instrumentId: Type.Integer(),
  symbol: Type.String(),
  minPositionExposure: Type.Number(),
  maxUnitsPerOrder: Type.Number({
    description: "The units the available cash buys at the highest leverage, at the ask",
  }),
  allowOpenPosition: Type.Boolean({ description: "Whether the instrument's market is open now" }),
  allowClosePosition: Type.Boolean({ description: "Whether the instrument's market is open now" }),
  allowPartialClosePosition: Type.Boolean(),
  allowMitOrders: Type.Boolean(),
  allowEntryOrders: Type.Boolean(),
  allowExitOrders: Type.Boolean(),
  allowTrailingStopLoss: Type.Boolean(),
  requiresW8Ben: Type.Union([Type.Boolean(), Type.Null()]),
  unitsQuantityType: Type.String(),
  orderFillBehaviorType: Type.String(),
  allowedOrderQuantityType: Type.String(),
  tradeUnitType: Type.String(),
  initialMarginInAssetCurrency: nullableNumber,
  stopLossMarginInAssetCurrency: nullableNumber,
  additionalBufferPercent: nullableNumber,
  leverageConfigs: Type.Array(LeverageConfiguration),
});

export const EligibilityResponse = Type.Object({
  currency: Type.String(),
  eligibilities: Type.Array(InstrumentEligibility),
  notFoundInstrumentIds: Type.Array(Type.Integer()),
  notFoundSymbols: Type.Array(Type.String()),
});
