import { requireUser } from "../../../core/access.js";
import { isoNow } from "../../../core/clock.js";
import { AppError, type Problem, validationFailed } from "../../../core/errors.js";
import { newId } from "../../../core/ids.js";
import type { Ctx, Deps } from "../../context.js";
import { findInstruments } from "../../market/find-instruments.js";
import { currentQuotes } from "../../market/quotes.js";
import { TRADE_SCOPES } from "../demo-account.js";
import { slTpBandProblems } from "../eligibility/eligibility-rules.js";
import { idempotently } from "../idempotency.js";
import { exitsFor } from "../open-market-order.js";
import { tradingRepository } from "../trading.repository.js";
import { currentStopOf } from "../triggers.js";

/** What changes: an absent field keeps its value; null (or 0) removes a rate. */
export interface ExitsChange {
  stopLossRate?: number | null | undefined;
  takeProfitRate?: number | null | undefined;
  stopLossType?: "fixed" | "trailing" | undefined;
}

export interface ChangedExits {
  positionId: number;
  stopLossRate: number;
  takeProfitRate: number;
  isTslEnabled: boolean;
  token: string;
}

/**
 * Changes an open position's stop-loss, take-profit and trailing flag (decision 0126), under the
 * rules an order's exits meet when it opens (exitsFor), against the current price. Every
 * instance's trigger index follows the change (PositionExitsChanged). The position's version is
 * kept, so a close racing the change is never refused. At most once per x-request-id.
 */
export async function changePositionExits(
  ctx: Ctx,
  requestId: string,
  positionId: number,
  change: ExitsChange,
): Promise<ChangedExits> {
  const actor = requireUser(ctx.actor, TRADE_SCOPES);
  const before = await tradingRepository(ctx.db.kysely).findPosition(positionId);
  if (!before || before.userId !== actor.userId) throw new AppError("NotFound", `Position ${positionId} was not found`);
  const quote = (await currentQuotes(ctx, [before.instrumentId])).get(before.instrumentId);
  if (!quote) throw new AppError("NotFound", `Position ${positionId} was not found`);
  const isBuy = before.isBuy === 1;
  const problems: Problem[] = [];
  const exits = exitsFor(
    {
      isBuy,
      stopLossRate: change.stopLossRate !== undefined ? change.stopLossRate : currentStopOf(ctx, before),
      takeProfitRate: change.takeProfitRate !== undefined ? change.takeProfitRate : before.takeProfitRate,
      isTslEnabled: change.stopLossType !== undefined ? change.stopLossType === "trailing" : before.isTslEnabled === 1,
    },
    isBuy ? quote.ask : quote.bid,
    isBuy ? quote.bid : quote.ask,
    problems,
  );
  // The bands an open meets (decision 0131), measured from the position's open rate.
  const instrument = (await findInstruments(ctx, [before.instrumentId])).get(before.instrumentId);
  problems.push(
    ...slTpBandProblems({
      rate: before.openRate,
      stopLossRate: exits.stopLossRate,
      takeProfitRate: exits.takeProfitRate,
      assetTypeId: instrument?.assetTypeId ?? 0,
      isBuy,
      leverage: before.leverage,
    }),
  );
  if (problems.length > 0) throw validationFailed(problems);

  return idempotently(
    ctx,
    { userId: actor.userId, requestId, operation: `exits:${positionId}`, input: change },
    async (trx, record) => {
      const now = isoNow(ctx.clock);
      const result = await trx
        .updateTable("demoPositions")
        .set({
          stopLossRate: exits.stopLossRate,
          takeProfitRate: exits.takeProfitRate,
          isTslEnabled: exits.isTslEnabled ? 1 : 0,
          tslGap: exits.tslGap,
          isNoStopLoss: exits.stopLossRate === 0 ? 1 : 0,
          isNoTakeProfit: exits.takeProfitRate === 0 ? 1 : 0,
          lastUpdate: now,
        })
        .where("positionId", "=", positionId)
        .where("status", "=", "open")
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) {
        throw new AppError("Conflict", `Position ${positionId} is already closed`);
      }
      record({
        type: "PositionExitsChanged",
        userId: actor.userId,
        cid: before.cid,
        positionId,
        instrumentId: before.instrumentId,
        isBuy,
        stopLossRate: exits.stopLossRate,
        takeProfitRate: exits.takeProfitRate,
        isTslEnabled: exits.isTslEnabled,
        tslGap: exits.tslGap,
        occurredAt: now,
      });
      return {
        positionId,
        stopLossRate: exits.stopLossRate,
        takeProfitRate: exits.takeProfitRate,
        isTslEnabled: exits.isTslEnabled,
        token: newId(),
      };
    },
  );
}

/** Every instance's trigger index watches a position's new levels (a trailing stop trails from now). */
export function registerExitChanges(deps: Deps): void {
  deps.bus.subscribeEverywhere("PositionExitsChanged", (e) =>
    deps.triggers.index.add({
      positionId: e.positionId,
      instrumentId: e.instrumentId,
      isBuy: e.isBuy,
      stopLossRate: e.stopLossRate,
      takeProfitRate: e.takeProfitRate,
      isTslEnabled: e.isTslEnabled,
      ...(e.isTslEnabled ? { bestRate: e.isBuy ? e.stopLossRate + e.tslGap : e.stopLossRate - e.tslGap } : {}),
    }),
  );
}
