import { AppError } from "../../../core/errors.js";
import type { Executor } from "../../../infra/db/executor.js";
import { peopleRepository, type SnapshotRow } from "../people.repository.js";
import type { HistoryQuery } from "../people.schemas.js";
import { addMonths, type DayReturn, periodRange } from "./returns.js";

/** The days a period's statistics look at: two years back covers every period (LastTwoYears). */
export async function recentReturns(db: Executor, userId: string, today: string): Promise<DayReturn[]> {
  const rows = await peopleRepository(db).returnsSince([userId], addMonths(today, -24));
  return rows.map((r) => ({ day: r.day, dailyReturn: r.dailyReturn, riskScore: r.riskScore }));
}

/** Every recorded day of one account, ascending. */
export const allSnapshots = (db: Executor, userId: string): Promise<SnapshotRow[]> =>
  peopleRepository(db).snapshotsOf(userId, "0000-01-01", "9999-12-31");

const badRequest = (message: string) => new AppError("BadRequest", message);

/**
 * Users Stats' date filter: `period`, or `minDate` and `maxDate` together (upstream's mutually
 * exclusive group); anything else is upstream's 400.
 */
export function rangeOf(query: HistoryQuery, today: string): { from: string; to: string } {
  const dates = [query.minDate, query.maxDate].filter((d) => d !== undefined).length;
  if (query.period !== undefined) {
    if (dates > 0) throw badRequest("Give period or minDate and maxDate, not both");
    return periodRange(query.period, today);
  }
  if (dates < 2) throw badRequest("Give period, or minDate and maxDate together");
  if ((query.minDate as string) > (query.maxDate as string)) throw badRequest("minDate is after maxDate");
  return { from: query.minDate as string, to: query.maxDate as string };
}
