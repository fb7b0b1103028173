import { AppError, invalid } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { compound, groupBy, monthOf, yearOf } from "../history/returns.js";
import { allSnapshots } from "../history/series.js";
import { percent } from "../history/stats.js";
import { peopleRepository } from "../people.repository.js";
import type { GainHistory, GainHistoryQuery } from "../people.schemas.js";
import { readableTarget, type Target } from "../privacy/privacy.js";

const at = (day: string) => `${day}T00:00:00Z`;

/** Each calendar month's and year's compound gain, percent (upstream's `people/{username}/gain`). */
export async function readGain(ctx: Ctx, username: string) {
  const { target } = await readableTarget(ctx, username, { portfolio: false });
  const days = await allSnapshots(ctx.db.kysely, target.user.id);
  const buckets = (key: (day: string) => string, pad: string) =>
    groupBy(days, key).map(([k, ds]) => ({
      timestamp: at(`${k}${pad}`),
      gain: percent(compound(ds.map((d) => d.dailyReturn))),
    }));
  return { monthly: buckets(monthOf, "-01"), yearly: buckets(yearOf, "-01-01") };
}

/** Each day's gain in [minDate, maxDate] (percent), or their compound (`Period`). */
export async function readDailyGain(
  ctx: Ctx,
  username: string,
  query: { minDate: string; maxDate: string; type: "Daily" | "Period" },
) {
  if (query.minDate > query.maxDate) {
    throw invalid("maxDate", "must not be before {minDate}");
  }
  const { target } = await readableTarget(ctx, username, { portfolio: false });
  const days = await peopleRepository(ctx.db.kysely).snapshotsOf(target.user.id, query.minDate, query.maxDate);
  if (query.type === "Period") return { gain: percent(compound(days.map((d) => d.dailyReturn))) };
  return days.map((d) => ({ timestamp: at(d.day), gain: percent(d.dailyReturn) }));
}

const round = (n: number) => Math.round(n * 1e10) / 1e10;

/**
 * Users Stats' gain series (decimal fractions): one point per day, calendar month or year with
 * history, scoped by minDate/maxDate, count, or one date and a count (decision 0140).
 */
export async function readGainHistory(
  ctx: Ctx,
  username: string,
  granularity: "daily" | "monthly" | "yearly",
  query: GainHistoryQuery,
): Promise<{ target: Target; body: GainHistory }> {
  const given = [query.minDate, query.maxDate, query.count].filter((v) => v !== undefined).length;
  if (given === 3)
    throw new AppError("BadRequest", "Give minDate and maxDate, or one of them with count, not all three");
  if (query.minDate && query.maxDate && query.minDate > query.maxDate) {
    throw new AppError("BadRequest", "minDate is after maxDate");
  }
  const { target } = await readableTarget(ctx, username, { portfolio: true });
  const days = (await allSnapshots(ctx.db.kysely, target.user.id)).filter(
    (d) => (!query.minDate || d.day >= query.minDate) && (!query.maxDate || d.day <= query.maxDate),
  );
  const key = granularity === "daily" ? (d: string) => d : granularity === "monthly" ? monthOf : yearOf;
  const pad = granularity === "daily" ? "" : granularity === "monthly" ? "-01" : "-01-01";
  let gains = groupBy(days, key).map(([k, ds]) => ({
    date: `${k}${pad}`,
    gain: round(compound(ds.map((d) => d.dailyReturn))),
  }));
  if (query.count !== undefined) {
    gains = query.minDate && !query.maxDate ? gains.slice(0, query.count) : gains.slice(-query.count);
  }
  const totalGain = gains.length === 0 ? null : round(compound(gains.map((g) => g.gain)));
  return { target, body: { username: target.user.username, granularity, totalGain, gains } };
}
