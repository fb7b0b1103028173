import { fromCents } from "../../trading/math.js";
import type { MirrorRow } from "../mirrors/mirrors.repository.js";

export const toCopy = (m: MirrorRow) => ({
  mirrorId: m.mirrorId,
  status: m.status,
  initialInvestment: fromCents(m.initialInvestmentCents),
  depositSummary: fromCents(m.depositCents),
  withdrawalSummary: fromCents(m.withdrawalCents),
  availableAmount: fromCents(m.availableCashCents),
  closedPositionsNetProfit: fromCents(m.closedPnlCents),
  stopLossAmount: fromCents(m.stopLossCents),
  startedCopyDate: m.startedAt,
});
