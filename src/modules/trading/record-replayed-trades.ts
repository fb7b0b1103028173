import { newId } from "../../core/ids.js";
import type { Executor } from "../../infra/db/executor.js";
import { ORDER_TYPE_CLOSE, ORDER_TYPE_OPEN, STATUS_EXECUTED } from "./demo-account.js";
import { tradingRepository } from "./trading.repository.js";

/** A position of a replayed past (the seeded history, decision 0142), from its open to its close. */
export interface ReplayedTrade {
  userId: string;
  cid: number;
  instrumentId: number;
  isBuy: boolean;
  leverage: number;
  /** Margin (cents). */
  amountCents: number;
  units: number;
  openRate: number;
  closeRate: number;
  openedAt: string;
  closedAt: string;
  netProfitCents: number;
  closeReason: string;
}

/**
 * Writes positions that were opened and closed in a replayed past as the book would have left them
 * (decision 0166): the executed open order, the closed position (its id is the open order's), the
 * executed close order and the closed trade. No cash moves and no event is published: the account
 * that the replay ends at is opened with the realised result already in it. Run inside the caller's
 * transaction.
 */
export async function recordReplayedTrades(db: Executor, trades: readonly ReplayedTrade[]): Promise<void> {
  const repo = tradingRepository(db);
  for (const t of trades) {
    const common = {
      userId: t.userId,
      cid: t.cid,
      instrumentId: t.instrumentId,
      isBuy: t.isBuy ? 1 : 0,
      leverage: t.leverage,
      stopLossRate: 0,
      takeProfitRate: 0,
      isTslEnabled: 0,
      isNoStopLoss: 1,
      isNoTakeProfit: 1,
    };
    const openOrderId = await repo.insertOrder({
      ...common,
      orderType: ORDER_TYPE_OPEN,
      statusId: STATUS_EXECUTED,
      amountCents: t.amountCents,
      units: t.units,
      requestedUnits: null,
      rate: t.openRate,
      positionId: null,
      unitsToDeduct: null,
      token: newId(),
      openDateTime: t.openedAt,
      lastUpdate: t.openedAt,
    });
    const positionId = await repo.insertPosition({
      ...common,
      positionId: openOrderId,
      orderId: openOrderId,
      amountCents: 0,
      initialAmountCents: t.amountCents,
      units: 0,
      initialUnits: t.units,
      openRate: t.openRate,
      openDateTime: t.openedAt,
      tslGap: 0,
      status: "closed",
      version: 2,
      lastUpdate: t.closedAt,
    });
    const closeOrderId = await repo.insertOrder({
      ...common,
      orderType: ORDER_TYPE_CLOSE,
      statusId: STATUS_EXECUTED,
      amountCents: t.amountCents,
      units: t.units,
      requestedUnits: null,
      rate: t.closeRate,
      positionId,
      unitsToDeduct: t.units,
      token: newId(),
      openDateTime: t.closedAt,
      lastUpdate: t.closedAt,
    });
    await repo.insertTrade({
      userId: t.userId,
      positionId,
      orderId: closeOrderId,
      openOrderId,
      instrumentId: t.instrumentId,
      isBuy: t.isBuy ? 1 : 0,
      leverage: t.leverage,
      openRate: t.openRate,
      closeRate: t.closeRate,
      openDateTime: t.openedAt,
      closeDateTime: t.closedAt,
      units: t.units,
      investmentCents: t.amountCents,
      initialInvestmentCents: t.amountCents,
      netProfitCents: t.netProfitCents,
      stopLossRate: 0,
      takeProfitRate: 0,
      isTslEnabled: 0,
      closeReason: t.closeReason,
    });
  }
}
