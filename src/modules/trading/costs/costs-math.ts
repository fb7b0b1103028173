/**
 * The costs arithmetic, in integer USD cents (decision 0130). Every figure is a whole number of
 * cents, never negative, and never falls as the exposure grows (tested as properties).
 */
import { type OvernightRates, SDRT_BPS } from "./fee-schedule.js";

/** One night's fee in cents for `exposureCents` of exposure (margin × leverage) at the class's rates. */
export function nightlyFeeCents(exposureCents: number, isBuy: boolean, rates: OvernightRates): number {
  if (!(exposureCents > 0)) return 0;
  const pct = isBuy ? rates.longAnnualPct : rates.shortAnnualPct;
  // Annual % → one night: exposure × pct / 100 / 365, rounded half up to a cent.
  return Math.max(0, Math.round((exposureCents * pct) / 36_500));
}

/** What one rollover charges: three nights on a Friday for classes that rest at the weekend. */
export function rolloverFeeCents(
  exposureCents: number,
  isBuy: boolean,
  rates: OvernightRates,
  newYorkWeekday: number,
): { cents: number; weekend: boolean } {
  const weekend = rates.weekendTriple && newYorkWeekday === 5;
  const nightly = nightlyFeeCents(exposureCents, isBuy, rates);
  return { cents: weekend ? nightly * 3 : nightly, weekend };
}

/** The spread paid on a round trip: units × (ask − bid), in cents. */
export function spreadCents(units: number, bid: number, ask: number): number {
  if (!(units > 0) || !(ask > bid)) return 0;
  return Math.max(0, Math.round(units * (ask - bid) * 100));
}

/** SDRT in cents on a consideration (notional) of `notionalCents`. */
export function sdrtCents(notionalCents: number): number {
  if (!(notionalCents > 0)) return 0;
  return Math.max(0, Math.round((notionalCents * SDRT_BPS) / 10_000));
}
