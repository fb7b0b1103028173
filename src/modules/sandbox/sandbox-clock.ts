import type { Clock } from "../../core/clock.js";

/**
 * The deps' clock while the sandbox is on (docs/decisions/0148): the base clock (the system's)
 * shifted by an offset the operator advances, or frozen at one instant. Everything that reads
 * `deps.clock` follows it: token expiry, idempotency and audit retention, trade and quote dates,
 * the rate limiter's windows.
 */
export class SandboxClock implements Clock {
  private offsetMs = 0;
  private frozenAt: number | undefined;

  constructor(private readonly base: Clock) {}

  now(): Date {
    return new Date(this.frozenAt ?? this.base.now().getTime() + this.offsetMs);
  }

  /** Moves time forward by `ms` (frozen or running). */
  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
  }

  /** Sets the time to `at`; frozen there, or running on from there. */
  set(at: number, frozen: boolean): void {
    if (frozen) {
      this.frozenAt = at;
      this.offsetMs = 0;
    } else {
      this.frozenAt = undefined;
      this.offsetMs = at - this.base.now().getTime();
    }
  }

  /** Back to the base clock. */
  reset(): void {
    this.frozenAt = undefined;
    this.offsetMs = 0;
  }

  /** One reading of the base clock: two would put a millisecond's tick between them into the offset. */
  get state(): { now: string; offsetMs: number; frozen: boolean } {
    const base = this.base.now().getTime();
    const now = this.frozenAt ?? base + this.offsetMs;
    return { now: new Date(now).toISOString(), offsetMs: now - base, frozen: this.frozenAt !== undefined };
  }
}
