import type { Consumption, LimitRequest, LimitState, RateLimitStore } from "./store.js";

interface Window {
  count: number;
  resetAt: number;
}

/** Expired windows are dropped this often, so idle callers do not accumulate. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Counters in this process. Node runs one request's check-and-count without interruption, so
 * concurrent requests of one caller can never over-admit.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = "memory" as const;
  /** Windows by pool, then by caller (no key string is built per request). */
  private readonly windows = new Map<string, Map<string, Window>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  consume(caller: string, limits: readonly LimitRequest[]): Consumption {
    return this.consumeNow(caller, limits);
  }

  /** The synchronous core, also used by the Redis store while Redis is unreachable. */
  consumeNow(caller: string, limits: readonly LimitRequest[]): Consumption {
    const now = this.now();
    const current: Window[] = limits.map(({ pool, windowMs }) => {
      const w = this.windows.get(pool)?.get(caller);
      return w && w.resetAt > now ? w : { count: 0, resetAt: now + windowMs };
    });
    const admitted = current.every((w, i) => w.count < limits[i]!.max);
    if (admitted) {
      current.forEach((w, i) => {
        w.count += 1;
        const pool = limits[i]!.pool;
        let callers = this.windows.get(pool);
        if (!callers) {
          callers = new Map();
          this.windows.set(pool, callers);
        }
        callers.set(caller, w);
      });
    }
    const states: LimitState[] = current.map((w) => ({ count: w.count, resetMs: w.resetAt - now }));
    return { admitted, states };
  }

  sweep(): void {
    const now = this.now();
    for (const callers of this.windows.values()) {
      for (const [caller, w] of callers) if (w.resetAt <= now) callers.delete(caller);
    }
  }

  /** Live windows (for tests of the sweep). */
  get size(): number {
    let n = 0;
    for (const callers of this.windows.values()) n += callers.size;
    return n;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.windows.clear();
  }
}
