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
    // Plain loops: this runs on every request (most spend one pool).
    const now = this.now();
    const current: Window[] = new Array(limits.length);
    let admitted = true;
    for (let i = 0; i < limits.length; i++) {
      const { pool, windowMs, max } = limits[i]!;
      const w = this.windows.get(pool)?.get(caller);
      current[i] = w && w.resetAt > now ? w : { count: 0, resetAt: now + windowMs };
      if (current[i]!.count >= max) admitted = false;
    }
    const states: LimitState[] = new Array(limits.length);
    for (let i = 0; i < limits.length; i++) {
      const w = current[i]!;
      if (admitted) {
        w.count += 1;
        this.callersOf(limits[i]!.pool).set(caller, w);
      }
      states[i] = { count: w.count, resetMs: w.resetAt - now };
    }
    return { admitted, states };
  }

  private callersOf(pool: string): Map<string, Window> {
    let callers = this.windows.get(pool);
    if (!callers) {
      callers = new Map();
      this.windows.set(pool, callers);
    }
    return callers;
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
