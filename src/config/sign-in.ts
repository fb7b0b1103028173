/**
 * The sign-in throttle per account (docs/decisions/0104): SIGNIN_FREE_FAILURES,
 * SIGNIN_WINDOW_MINUTES, SIGNIN_MAX_DELAY_SECONDS, SIGNIN_DEVICE_DAYS.
 */

import type { Pick } from "./shared.js";

export interface SignInSettings {
  /** Failed sign-ins of one pool (an account's unknown browsers, one known browser or address) before a delay. */
  freeFailures: number;
  /** A pool is forgotten this long after its last delay ended without a new failure (seconds). */
  windowSeconds: number;
  /** The longest delay: 1 s after the free failures, doubling per failure, capped here (seconds). */
  maxDelaySeconds: number;
  /** How long the device cookie of a browser that signed in, and the address it came from, are kept (seconds). */
  deviceCookieSeconds: number;
}

function wholeNumber(
  pick: Pick,
  name: string,
  fallback: number,
  [min, max]: [number, number],
  unit: string,
  problems: string[],
): number {
  const text = pick(undefined, name) ?? String(fallback);
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    problems.push(`${name} must be a whole number of ${unit} from ${min} to ${max} (got "${text}")`);
  }
  return Number(text);
}

export function parseSignInSettings(pick: Pick, problems: string[]): SignInSettings {
  const freeFailures = wholeNumber(pick, "SIGNIN_FREE_FAILURES", 5, [1, 100], "failures", problems);
  const windowMinutes = wholeNumber(pick, "SIGNIN_WINDOW_MINUTES", 15, [1, 1440], "minutes", problems);
  const maxDelaySeconds = wholeNumber(pick, "SIGNIN_MAX_DELAY_SECONDS", 900, [1, 86_400], "seconds", problems);
  const deviceDays = wholeNumber(pick, "SIGNIN_DEVICE_DAYS", 180, [1, 730], "days", problems);
  return {
    freeFailures,
    windowSeconds: windowMinutes * 60,
    maxDelaySeconds,
    deviceCookieSeconds: deviceDays * 86_400,
  };
}
