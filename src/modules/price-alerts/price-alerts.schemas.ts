import { type Static, Type } from "typebox";
import { BoundedNumber, Int32Id } from "../../http/schemas.js";

/** Upstream's largest quotes are under a million; a target beyond 1e9 is a typo, not an alert. */
const Target = BoundedNumber(1e9, {
  exclusiveMinimum: 0,
  description: "The price at which the alert fires, above or below the current bid. Must be greater than 0.",
});

export const CreatePriceAlertBody = Type.Object(
  {
    symbol: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "Trading symbol of the instrument (e.g. AAPL, BTC)" }),
    ),
    instrumentId: Type.Optional(
      Int32Id({ description: "Extension of this server: the instrument by id, instead of or beside `symbol`" }),
    ),
    targetPrice: Target,
  },
  { description: "A new price alert: `symbol` (or our `instrumentId`) and `targetPrice`" },
);
export type CreatePriceAlertBody = Static<typeof CreatePriceAlertBody>;

export const UpdatePriceAlertBody = Type.Object({ targetPrice: Target });

export const AlertParams = Type.Object({ alertId: Type.String({ format: "uuid" }) });

export const PriceAlert = Type.Object(
  {
    alertId: Type.String({ format: "uuid" }),
    instrumentId: Type.Integer(),
    symbol: Type.String(),
    targetPrice: Type.Number(),
    currentPrice: Type.Number({ description: "The bid when the alert was created or last updated" }),
    createdAt: Type.String({ format: "date-time" }),
    updatedAt: Type.String({ format: "date-time" }),
  },
  { description: "A price alert; it fires once, when the bid reaches the target from the side it was set" },
);
export type PriceAlert = Static<typeof PriceAlert>;

export const PriceAlertCollection = Type.Object({
  results: Type.Array(PriceAlert, { description: "The caller's active alerts, newest first" }),
});

export const PriceAlertMutation = Type.Object({ success: Type.Boolean(), data: PriceAlert });

export const DeletePriceAlertResult = Type.Object({
  success: Type.Boolean(),
  data: Type.Object({ alertId: Type.String({ format: "uuid" }) }),
});
