import type { Ctx } from "../../context.js";
import { addDays, compound, dayOf, groupBy, type Period, periodRange, within } from "../history/returns.js";
import { recentReturns } from "../history/series.js";
import { mondayOf, percent, statsFor } from "../history/stats.js";
import { peopleRepository } from "../people.repository.js";
import { fullNameOf, weeksSince } from "../people.view.js";
import { readableTarget } from "../privacy/privacy.js";

/** Leverage bands of the trade statistics (decision 0140). */
const LOW_LEVERAGE_MAX = 2;
const MEDIUM_LEVERAGE_MAX = 10;

/** A user's trading over a period, from their recorded days and closed trades (percentages only). */
export async function readTradeInfo(ctx: Ctx, username: string, period: Period) {
  const { target } = await readableTarget(ctx, username, { portfolio: false });
  const now = ctx.clock.now();
  const today = dayOf(now);
  const { from, to } = periodRange(period, today);
  const repo = peopleRepository(ctx.db.kysely);
  const series = await recentReturns(ctx.db.kysely, target.user.id, today);
  const stats = statsFor(series, today).find((s) => s.period === period)!;
  const days = within(series, from, to);
  const trades = await repo.tradesBetween(target.user.id, `${from}T00:00:00.000Z`, `${addDays(to, 1)}T00:00:00.000Z`);
  const latest = await repo.latestSnapshotOf(target.user.id);
  const copiers = (await repo.statsOf(target.user.id, period))?.copiers ?? 0;

  const weeks = groupBy(days, mondayOf);
  const weekGains = weeks.map(([, ds]) => compound(ds.map((d) => d.dailyReturn)));
  const periodWeeks = Math.max(1, Math.ceil((Date.parse(to) - Date.parse(from) + 86_400_000) / (7 * 86_400_000)));
  const activeWeeks = new Set(trades.map((t) => mondayOf(t.closeDateTime.slice(0, 10)))).size;
  const byInstrument = new Map<number, number>();
  for (const t of trades) byInstrument.set(t.instrumentId, (byInstrument.get(t.instrumentId) ?? 0) + 1);
  const top = [...byInstrument.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  const share = (n: number) => (trades.length === 0 ? 0 : percent(n / trades.length));
  const equity = latest?.equityCents ?? 0;
  const avgInvestment = trades.length === 0 ? 0 : trades.reduce((s, t) => s + t.investmentCents, 0) / trades.length;
  let peak = 1;
  let value = 1;
  let drawdown = 0;
  for (const d of days) {
    value *= 1 + d.dailyReturn;
    peak = Math.max(peak, value);
    drawdown = Math.min(drawdown, value / peak - 1);
  }
  return {
    userName: target.user.username,
    fullName: fullNameOf(target.user),
    weeksSinceRegistration: weeksSince(target.user.createdAt, now),
    countryId: target.user.countryCode,
    isPopularInvestor: target.user.piLevel > 0,
    isFund: false,
    hasAvatar: true,
    gain: stats.gain,
    dailyGain: stats.dailyGain,
    thisWeekGain: stats.weekGain,
    riskScore: stats.riskScore,
    maxDailyRiskScore: stats.maxDailyRisk,
    maxMonthlyRiskScore: stats.maxMonthlyRisk,
    copiers,
    trades: trades.length,
    ...(top ? { topTradedInstrumentId: top[0] } : {}),
    winRatio: share(trades.filter((t) => t.netProfitCents > 0).length),
    profitableWeeksPct: weeks.length === 0 ? 0 : percent(weekGains.filter((g) => g > 0).length / weeks.length),
    profitableMonthsPct: stats.profitableMonthsPct,
    avgPosSize: equity > 0 ? percent(avgInvestment / equity) : 0,
    lowLeveragePct: share(trades.filter((t) => t.leverage <= LOW_LEVERAGE_MAX).length),
    mediumLeveragePct: share(
      trades.filter((t) => t.leverage > LOW_LEVERAGE_MAX && t.leverage <= MEDIUM_LEVERAGE_MAX).length,
    ),
    highLeveragePct: share(trades.filter((t) => t.leverage > MEDIUM_LEVERAGE_MAX).length),
    activeWeeksPct: percent(Math.min(1, activeWeeks / periodWeeks)),
    dailyDd: percent(Math.min(0, ...days.map((d) => d.dailyReturn))),
    weeklyDd: percent(Math.min(0, ...weekGains)),
    peakToValley: percent(drawdown),
  };
}
