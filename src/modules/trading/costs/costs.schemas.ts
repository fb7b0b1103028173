import { Type } from "typebox";
import { BoundedNumber, Int32 } from "../../../http/schemas.js";

const MAGNITUDE = 1e9;
const nullable = (type: string, extra: Record<string, unknown> = {}) =>
  Type.Optional(Type.Unsafe<never>({ type: [type, "null"], ...extra }));

export const CostsBody = Type.Object({
  action: Type.Union([Type.Literal("open"), Type.Literal("close")]),
  transaction: Type.Union([
    Type.Literal("buy"),
    Type.Literal("sell"),
    Type.Literal("sellShort"),
    Type.Literal("buyToCover"),
  ]),
  symbol: nullable("string", { maxLength: 100 }),
  instrumentId: nullable("integer", { minimum: -2_147_483_648, maximum: 2_147_483_647 }),
  settlementType: Type.Optional(
    Type.Unsafe<never>({ type: ["string", "null"], enum: ["cfd", "real", "realFutures", "marginTrade", null] }),
  ),
  orderType: Type.Optional(Type.Union([Type.Literal("mkt"), Type.Literal("mit")])),
  triggerRate: nullable("number", { minimum: -MAGNITUDE, maximum: MAGNITUDE }),
  leverage: nullable("integer", { minimum: -2_147_483_648, maximum: 2_147_483_647 }),
  amount: nullable("number", { minimum: -MAGNITUDE, maximum: MAGNITUDE }),
  orderCurrency: nullable("string", { maxLength: 10 }),
  units: nullable("number", { minimum: -MAGNITUDE, maximum: MAGNITUDE }),
  contracts: nullable("number", { minimum: -MAGNITUDE, maximum: MAGNITUDE }),
  stopLossRate: nullable("number", { minimum: -MAGNITUDE, maximum: MAGNITUDE }),
  takeProfitRate: nullable("number", { minimum: -MAGNITUDE, maximum: MAGNITUDE }),
  stopLossType: Type.Optional(Type.Unsafe<never>({ type: ["string", "null"], enum: ["fixed", "trailing", null] })),
  additionalMargin: nullable("number", { minimum: -MAGNITUDE, maximum: MAGNITUDE }),
  positionIds: nullable("array", {
    items: { type: "integer", minimum: -2_147_483_648, maximum: 2_147_483_647 },
    maxItems: 100,
  }),
});

export const CostsResponse = Type.Object({
  instrumentId: Int32(),
  symbol: Type.Union([Type.String(), Type.Null()]),
  costs: Type.Array(
    Type.Object({
      costType: Type.Union([
        Type.Literal("markup"),
        Type.Literal("marketSpread"),
        Type.Literal("transactionFee"),
        Type.Literal("overnightFee"),
        Type.Literal("overWeekendFee"),
        Type.Literal("sdrt"),
      ]),
      amount: BoundedNumber(MAGNITUDE * 100, { description: "USD, whole cents" }),
      currency: Type.String(),
    }),
  ),
  lastUpdated: Type.String({ format: "date-time" }),
});
