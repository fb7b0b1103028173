import type { Ctx } from "../../context.js";
import { currentQuotes } from "../../market/quotes.js";
import { pnlCents } from "../../trading/math.js";
import { currentStopOf } from "../../trading/triggers.js";
import { peopleRepository } from "../people.repository.js";
import { readableTarget } from "../privacy/privacy.js";

const pct = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1e6) / 1e4 : 0);

/**
 * A user's open positions now, every figure a percentage (decision 0141): of the account's equity
 * for sizes and cash, of the position's margin for its profit. No amount of money is shown.
 */
export async function readLivePortfolio(ctx: Ctx, username: string) {
  const { target } = await readableTarget(ctx, username, { portfolio: true });
  const repo = peopleRepository(ctx.db.kysely);
  const cashCents = await repo.cashOf(target.user.id);
  const rows = cashCents === undefined ? [] : await repo.livePositionsOf(target.user.id);
  const quotes = await currentQuotes(ctx, [...new Set(rows.map((r) => r.instrumentId))]);
  const valued = rows.map((p) => {
    const q = quotes.get(p.instrumentId);
    const isBuy = p.isBuy === 1;
    const rate = q ? (isBuy ? q.bid : q.ask) : p.openRate;
    return { p, pnl: pnlCents(isBuy, p.units, p.openRate, rate, p.amountCents) };
  });
  const cash = cashCents ?? 0;
  const unrealised = valued.reduce((s, v) => s + v.pnl, 0);
  const equity = cash + valued.reduce((s, v) => s + v.p.amountCents + v.pnl, 0);
  return {
    realizedCreditPct: pct(cash, equity),
    unrealizedCreditPct: pct(cash + unrealised, equity),
    positions: valued.map(({ p, pnl }) => ({
      positionId: p.positionId,
      openTimestamp: p.openDateTime,
      openRate: p.openRate,
      instrumentId: p.instrumentId,
      isBuy: p.isBuy === 1,
      leverage: p.leverage,
      takeProfitRate: p.takeProfitRate,
      stopLossRate: currentStopOf(ctx, p),
      socialTradeId: 0,
      parentPositionId: 0,
      investmentPct: pct(p.amountCents, equity),
      netProfit: pct(pnl, p.amountCents),
      trailingStopLoss: p.isTslEnabled === 1,
    })),
    socialTrades: [],
  };
}
