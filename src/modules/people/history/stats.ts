import {
  addDays,
  compound,
  type DayReturn,
  groupBy,
  maxDailyRisk,
  maxMonthlyRisk,
  monthOf,
  PERIODS,
  type Period,
  periodRange,
  within,
} from "./returns.js";

/** What search filters and sorts on for one account and one period (percentages, as upstream's search). */
export interface PeriodStats {
  period: Period;
  /** Compound gain over the period, percent. */
  gain: number;
  /** The last day's gain, percent. */
  dailyGain: number;
  /** Compound gain since Monday (UTC), percent. */
  weekGain: number;
  /** The daily risk score of the last day. */
  riskScore: number;
  maxDailyRisk: number;
  maxMonthlyRisk: number;
  /** Calendar months (of the period, with history) that gained, percent of those months. */
  profitableMonthsPct: number;
}

export const percent = (fraction: number) => Math.round(fraction * 1e6) / 1e4;

/** Monday of `day`'s week (UTC). */
export function mondayOf(day: string): string {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return addDays(day, -((weekday + 6) % 7));
}

/** The days each period covers as of `today`, and the week's first day: the same for every account of a pass. */
export interface PeriodCalendar {
  today: string;
  monday: string;
  ranges: { period: Period; from: string; to: string }[];
}

export function periodCalendar(today: string): PeriodCalendar {
  return {
    today,
    monday: mondayOf(today),
    ranges: PERIODS.map((period) => ({ period, ...periodRange(period, today) })),
  };
}

/**
 * One account's figures for every period, from its daily returns (ascending) as of `today`. A pass
 * gives the day's `calendar` once for all its accounts (the date arithmetic was a tenth of its CPU).
 */
export function statsFor(
  series: readonly DayReturn[],
  today: string,
  calendar: PeriodCalendar = periodCalendar(today),
): PeriodStats[] {
  const last = series[series.length - 1];
  const lastToday = last && last.day === today ? last : undefined;
  const dailyGain = percent(lastToday?.dailyReturn ?? 0);
  const weekGain = percent(compound(within(series, calendar.monday, today).map((d) => d.dailyReturn)));
  const riskScore = last?.riskScore ?? 1;
  return calendar.ranges.map(({ period, from, to }) => {
    const days = within(series, from, to);
    const months = groupBy(days, monthOf);
    const profitable = months.filter(([, m]) => compound(m.map((d) => d.dailyReturn)) > 0).length;
    return {
      period,
      gain: percent(compound(days.map((d) => d.dailyReturn))),
      dailyGain,
      weekGain,
      riskScore,
      maxDailyRisk: maxDailyRisk(days),
      maxMonthlyRisk: maxMonthlyRisk(days),
      profitableMonthsPct: months.length === 0 ? 0 : percent(profitable / months.length),
    };
  });
}
