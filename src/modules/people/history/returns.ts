/**
 * Time-weighted returns and risk scores of a demo account (decisions 0138 and 0139). Pure
 * functions over daily closes: no store, no clock.
 */

/** One day's close as the return maths needs it. */
export interface DayClose {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  equityCents: number;
  /** Money put into the account so far, net of money taken out (cumulative). */
  depositsCents: number;
}

/**
 * The day's time-weighted return: what the money in the account at the previous close made,
 * with the day's net flow (deposits minus withdrawals) taken out of the close first, so that
 * moving money in or out is not a gain or a loss. The first day starts from the money put in.
 * An account with nothing at the previous close has no return (0).
 */
export function dailyReturn(previous: DayClose | undefined, today: DayClose): number {
  const start = previous ? previous.equityCents : today.depositsCents;
  const flow = previous ? today.depositsCents - previous.depositsCents : 0;
  if (start <= 0) return 0;
  return (today.equityCents - flow) / start - 1;
}

/** Chains daily returns: (1+r1)(1+r2)…−1. The gain of any run of days. */
export function compound(returns: readonly number[]): number {
  let value = 1;
  for (const r of returns) value *= 1 + r;
  return value - 1;
}

/** Thresholds of annualised volatility (fraction) between the risk scores 1…10 (decision 0139). */
export const RISK_THRESHOLDS = [0.01, 0.03, 0.06, 0.1, 0.15, 0.22, 0.3, 0.4, 0.55] as const;
/** Trading days in a year, to annualise the standard deviation of daily returns. */
export const TRADING_DAYS = 252;
/** The days of returns the daily risk score of a day looks back over (that day included). */
export const RISK_WINDOW_DAYS = 30;

/** Sample standard deviation; 0 for fewer than two values. */
export function standardDeviation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const squares = values.reduce((s, v) => s + (v - mean) ** 2, 0);
  return Math.sqrt(squares / (values.length - 1));
}

/** Annualised volatility of daily returns. */
export const annualisedVolatility = (returns: readonly number[]) =>
  standardDeviation(returns) * Math.sqrt(TRADING_DAYS);

/** 1 (calmest) … 10: one plus the number of thresholds the annualised volatility reaches. */
export function riskScoreOf(returns: readonly number[]): number {
  const volatility = annualisedVolatility(returns);
  let score = 1;
  for (const t of RISK_THRESHOLDS) if (volatility >= t - 1e-12) score += 1;
  return score;
}

/** YYYY-MM-DD of a Date, in UTC. */
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** `day` moved by `days` (negative: earlier). */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return dayOf(d);
}

/** `day` moved by `months` calendar months, clamped to the month's last day. */
export function addMonths(day: string, months: number): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const first = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(d, last));
  return dayOf(first);
}

/** Upstream's named periods (search, tradeinfo, Users Stats). */
export const PERIODS = [
  "CurrMonth",
  "CurrQuarter",
  "CurrYear",
  "LastYear",
  "LastTwoYears",
  "OneMonthAgo",
  "TwoMonthsAgo",
  "ThreeMonthsAgo",
  "SixMonthsAgo",
  "OneYearAgo",
] as const;
export type Period = (typeof PERIODS)[number];

/** The inclusive range of UTC days a period covers, as of `today` (decision 0138). */
export function periodRange(period: Period, today: string): { from: string; to: string } {
  const [y, m] = today.split("-").map(Number) as [number, number];
  const pad = (n: number) => String(n).padStart(2, "0");
  switch (period) {
    case "CurrMonth":
      return { from: `${y}-${pad(m)}-01`, to: today };
    case "CurrQuarter":
      return { from: `${y}-${pad(m - ((m - 1) % 3))}-01`, to: today };
    case "CurrYear":
      return { from: `${y}-01-01`, to: today };
    case "LastYear":
      return { from: `${y - 1}-01-01`, to: `${y - 1}-12-31` };
    case "LastTwoYears":
      return { from: addDays(addMonths(today, -24), 1), to: today };
    case "OneMonthAgo":
      return { from: addDays(addMonths(today, -1), 1), to: today };
    case "TwoMonthsAgo":
      return { from: addDays(addMonths(today, -2), 1), to: today };
    case "ThreeMonthsAgo":
      return { from: addDays(addMonths(today, -3), 1), to: today };
    case "SixMonthsAgo":
      return { from: addDays(addMonths(today, -6), 1), to: today };
    case "OneYearAgo":
      return { from: addDays(addMonths(today, -12), 1), to: today };
  }
}

/** A day's return as history keeps it. */
export interface DayReturn {
  day: string;
  dailyReturn: number;
  riskScore: number;
}

/** Days of `series` (ascending) within [from, to]. */
export const within = <T extends { day: string }>(series: readonly T[], from: string, to: string) =>
  series.filter((d) => d.day >= from && d.day <= to);

/** Groups an ascending series by the key of each day (month `YYYY-MM`, year `YYYY`), in order. */
export function groupBy<T extends { day: string }>(
  series: readonly T[],
  key: (day: string) => string,
): [string, T[]][] {
  const groups: [string, T[]][] = [];
  for (const d of series) {
    const k = key(d.day);
    const last = groups[groups.length - 1];
    if (last && last[0] === k) last[1].push(d);
    else groups.push([k, [d]]);
  }
  return groups;
}

export const monthOf = (day: string) => day.slice(0, 7);
export const yearOf = (day: string) => day.slice(0, 4);

/** The monthly risk score: the score of each calendar month's daily returns, the highest of those given. */
export function maxMonthlyRisk(series: readonly DayReturn[]): number {
  let max = 1;
  for (const [, days] of groupBy(series, monthOf)) {
    max = Math.max(max, riskScoreOf(days.map((d) => d.dailyReturn)));
  }
  return max;
}

/** The highest daily risk score of the days given (1 when there are none). */
export const maxDailyRisk = (series: readonly DayReturn[]) => series.reduce((m, d) => Math.max(m, d.riskScore), 1);

/** Downsamples an ascending series to at most `count` points: the last of each of `count` even buckets. */
export function downsample<T>(series: readonly T[], count: number | undefined): T[] {
  if (!count || count <= 0 || series.length <= count) return [...series];
  const out: T[] = [];
  for (let b = 1; b <= count; b++) out.push(series[Math.ceil((b * series.length) / count) - 1] as T);
  return out;
}
