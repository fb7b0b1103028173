export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The last instant `isoNow` formatted, and its text: an order asks for the time several times in a
 * millisecond. Module-level, as 0094 allows for a pure memo: the text depends on the instant alone,
 * so whichever app or clock asks, the answer is the same.
 */
let lastMs = Number.NaN;
let lastIso = "";

/** ISO 8601 with milliseconds and `Z`: fixed width, so text order is time order. */
export function isoNow(clock: Clock): string {
  const now = clock.now();
  const ms = now.getTime();
  if (ms !== lastMs) {
    lastIso = now.toISOString();
    lastMs = ms;
  }
  return lastIso;
}
