/** One quota to spend for a request: at most `max` requests per `windowMs` in pool `pool`. */
export interface LimitRequest {
  readonly pool: string;
  readonly max: number;
  readonly windowMs: number;
}

/** Where one quota stands after the call. */
export interface LimitState {
  /** Requests counted in the current window, this one included when it was admitted. */
  readonly count: number;
  /** Milliseconds until the window resets. */
  readonly resetMs: number;
}

export interface Consumption {
  readonly admitted: boolean;
  /** One per requested quota, in the same order. */
  readonly states: readonly LimitState[];
}

/**
 * A counter store shared by every request of a caller. `consume` is all-or-nothing: when any
 * quota is exhausted nothing is counted, so a request turned away by one limit spends no other.
 * Each (caller, pool) window starts with its first request and lasts `windowMs` (fixed window).
 */
export interface RateLimitStore {
  readonly kind: "memory" | "redis";
  /**
   * Spends one request of `caller` in every listed pool, or none when any is exhausted. The
   * memory store answers synchronously (no promise per request); the Redis store asynchronously.
   */
  consume(caller: string, limits: readonly LimitRequest[]): Consumption | Promise<Consumption>;
  close(): Promise<void>;
}
