/**
 * The demo account's arithmetic. Balances are integer USD cents and only integers are added
 * to them; floating point is used for units and rates, and a money figure derived from them is
 * rounded to a whole cent exactly once. So cash + invested − realised P/L always equals the
 * starting balance, to the cent (tested as a property).
 */

/** USD with at most two decimals → cents; null when it is not such an amount. */
export function toCents(amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  const cents = Math.round(amount * 100);
  if (Math.abs(cents - amount * 100) > 1e-6 * Math.max(1, Math.abs(amount))) return null;
  return Number.isSafeInteger(cents) ? cents : null;
}

export const fromCents = (cents: number) => cents / 100;

/** Units bought by `amountCents` at `rate` with `leverage`: notional / rate. */
export function unitsFor(amountCents: number, leverage: number, rate: number): number {
  return ((amountCents / 100) * leverage) / rate;
}

/** The margin (cents) that `units` at `rate` with `leverage` take: the inverse of unitsFor, rounded. */
export function amountForUnits(units: number, leverage: number, rate: number): number {
  return Math.round(((units * rate) / leverage) * 100);
}

/**
 * Profit or loss in cents of `units` opened at `openRate` and valued at `closeRate`. A
 * position cannot lose more than the margin behind it (`investedCents`): a demo account never
 * goes below zero.
 */
export function pnlCents(
  isBuy: boolean,
  units: number,
  openRate: number,
  closeRate: number,
  investedCents: number,
): number {
  const raw = Math.round(units * (closeRate - openRate) * (isBuy ? 1 : -1) * 100);
  return Math.max(raw, -investedCents);
}

/** The share of the margin that leaves with `unitsClosed` of `units` (the rest stays invested). */
export function marginShare(amountCents: number, units: number, unitsClosed: number): number {
  if (unitsClosed >= units) return amountCents;
  return Math.min(amountCents, Math.round((amountCents * unitsClosed) / units));
}

/** Units closer to zero than this are dust: a partial close leaving only dust closes everything. */
export const UNITS_EPSILON = 1e-9;
