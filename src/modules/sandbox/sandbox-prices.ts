import type { PricedInstrument, PriceSource, TickOptions, TwoSidedPrice } from "../../core/market.js";

/** One scripted value: a mid (bid and ask follow from the spread) or an exact bid and ask. */
export type ScriptedPrice = number | TwoSidedPrice;

/**
 * The market's price source while the sandbox is on (docs/decisions/0148): it wraps the seeded
 * random walk and adds what the operator asked for. Prices still move only through the engine's
 * tick, so every listener (triggers, alerts, the real-time channel, the price stream) sees a
 * sandbox price exactly as an organic one.
 *
 * - A paused instrument (or all, `pauseAll`) holds its price on timed ticks: neither its walk nor
 *   its script moves it, and its walk does not draw (resuming continues the same path).
 * - A script is a queue of prices; each tick that moves the instrument takes the next one instead
 *   of the walk. A manual tick (`step`, `set`, `play now`) plays scripts even when paused.
 */
export class SandboxPrices implements PriceSource {
  private readonly paused = new Set<number>();
  private allPaused = false;
  private readonly scripts = new Map<number, ScriptedPrice[]>();

  constructor(private walk: PriceSource) {}

  next(instrument: PricedInstrument, previousMid: number, step: number, options?: TickOptions) {
    const id = instrument.instrumentId;
    const frozen = this.allPaused || this.paused.has(id);
    if (frozen && !options?.manual) return undefined;
    const script = this.scripts.get(id);
    if (script && script.length > 0) {
      const value = script.shift();
      if (script.length === 0) this.scripts.delete(id);
      return value;
    }
    if (frozen) return undefined;
    return this.walk.next(instrument, previousMid, step, options);
  }

  /** Puts `price` first in the instrument's queue: the next tick that moves it plays it. */
  playNext(instrumentId: number, price: ScriptedPrice): void {
    this.scripts.set(instrumentId, [price, ...(this.scripts.get(instrumentId) ?? [])]);
  }

  /** Appends a path to the instrument's queue. */
  enqueue(instrumentId: number, prices: readonly ScriptedPrice[]): void {
    if (prices.length === 0) return;
    this.scripts.set(instrumentId, [...(this.scripts.get(instrumentId) ?? []), ...prices]);
  }

  /** Prices still queued for an instrument. */
  queued(instrumentId: number): number {
    return this.scripts.get(instrumentId)?.length ?? 0;
  }

  /** Instruments with a script still playing. */
  scripted(): number[] {
    return [...this.scripts.keys()].sort((a, b) => a - b);
  }

  clearScript(instrumentId?: number): void {
    if (instrumentId === undefined) this.scripts.clear();
    else this.scripts.delete(instrumentId);
  }

  pause(instrumentIds?: readonly number[]): void {
    if (instrumentIds === undefined) this.allPaused = true;
    else for (const id of instrumentIds) this.paused.add(id);
  }

  /** Resumes the named instruments, or everything (the global pause and every single one). */
  resume(instrumentIds?: readonly number[]): void {
    if (instrumentIds === undefined) {
      this.allPaused = false;
      this.paused.clear();
    } else for (const id of instrumentIds) this.paused.delete(id);
  }

  isPaused(instrumentId: number): boolean {
    return this.allPaused || this.paused.has(instrumentId);
  }

  get everythingPaused(): boolean {
    return this.allPaused;
  }

  pausedIds(): number[] {
    return [...this.paused].sort((a, b) => a - b);
  }

  /** Back to the plain walk (a new one from its start, when given): no pause, no script. */
  reset(walk?: PriceSource): void {
    this.resume();
    this.clearScript();
    if (walk) this.walk = walk;
  }
}
