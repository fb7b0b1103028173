export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 with milliseconds and `Z`: fixed width, so text order is time order. */
export const isoNow = (clock: Clock) => clock.now().toISOString();
