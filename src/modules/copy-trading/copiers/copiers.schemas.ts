import { Type } from "typebox";

export const STARTED_AT = [
  "less than 1 day",
  "less than 1 week",
  "less than 1 month",
  "less than 1 year",
  "more than 1 year",
] as const;
export const AMOUNTS = ["<100", "100-500", "500-1000", "1000-5000", ">5000"] as const;
export const AGES = ["Under 18", "18-29", "30-44", "45-59", "60+"] as const;

export const CopierPublicInfo = Type.Object(
  {
    Gender: Type.Optional(Type.String({ description: "M or F; absent when the copier did not say" })),
    Club: Type.Optional(Type.String({ description: "The copier's club tier" })),
    Country: Type.Optional(Type.String({ description: "The copier's country; absent when unknown" })),
    CopyStartedAtCategory: Type.Enum(STARTED_AT, { description: "How long ago the copy started" }),
    AmountCategory: Type.Enum(AMOUNTS, { description: "The money copied with (USD)" }),
    AgeCategory: Type.Optional(Type.Enum(AGES, { description: "The copier's age; absent when not given" })),
    CopyRealizedEquity_pnl: Type.String({ description: "The copy's realised P/L, USD, as text" }),
    AvailableCopyBalance: Type.String({ description: "The copy's available cash, USD, as text" }),
  },
  { additionalProperties: false },
);

export const CopiersPublicInfo = Type.Object(
  { copiers: Type.Array(CopierPublicInfo, { description: "One entry per copy of the caller, oldest first" }) },
  { additionalProperties: false },
);
