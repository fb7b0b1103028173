import { Type } from "typebox";

/** A copy of a person, as its routes answer it. */
export const Copy = Type.Object({
  mirrorId: Type.Integer(),
  status: Type.String({ description: "active, paused or stopping" }),
  initialInvestment: Type.Number(),
  depositSummary: Type.Number(),
  withdrawalSummary: Type.Number(),
  availableAmount: Type.Number(),
  closedPositionsNetProfit: Type.Number(),
  stopLossAmount: Type.Number({ description: "0 = none" }),
  startedCopyDate: Type.String({ format: "date-time" }),
});
