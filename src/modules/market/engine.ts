import { randomUUID } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import type {
  Candle,
  CandleInterval,
  Market,
  PricedInstrument,
  PriceSource,
  Quote,
  TickListener,
  TickOptions,
  TwoSidedPrice,
} from "../../core/market.js";
import { CandleSeries } from "./candles.js";
import { RandomWalkSource } from "./price-sources.js";

export interface EngineSettings {
  seed: number;
  volatility: number;
  spreadBps: number;
  tickMs: number;
}

interface InstrumentState {
  instrument: PricedInstrument;
  quote: Quote;
  candles: CandleSeries;
}

/**
 * Who may tick when several instances run (src/infra/lease): `acquire` is asked before every
 * timed tick and renews the lease of the instance that holds it. Without one the engine always
 * ticks.
 */
export interface Leadership {
  acquire(): Promise<boolean>;
  release(): Promise<void>;
  close(): Promise<void>;
}

export interface EngineOptions {
  onError?: (error: unknown) => void;
  leadership?: Leadership;
  /** Told how late (ms) each timed tick started against its schedule (the metrics' tick lag). */
  onTickLag?: (lateMs: number) => void;
  /** Whether an instrument's market trades at an instant (market hours); without it always. */
  isOpen?: (instrument: PricedInstrument, at: Date) => boolean;
}

const round = (value: number, precision: number) => {
  const f = 10 ** precision;
  return Math.round(value * f) / f;
};

/**
 * Owns the current prices. Each tick asks the source for every priced instrument's next mid,
 * derives bid and ask from the spread, folds the mid into the candles and then runs the tick
 * listeners (the trading triggers) before the next tick may start. Tests call `tick()`
 * directly; `serve` calls `start()` for a timer.
 */
export class MarketEngine implements Market {
  private readonly states = new Map<number, InstrumentState>();
  private readonly listeners: TickListener[] = [];
  private source: PriceSource;
  private step = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  /** The timed tick in flight (asking for the lease, then ticking). */
  private timing: Promise<void> | undefined;
  /** Quotes broadcast for instruments not priced here yet: `register` starts them there. */
  private readonly appliedUnknown = new Map<number, Quote>();
  private readonly onError: (error: unknown) => void;
  private readonly leadership: Leadership | undefined;
  private readonly onTickLag: ((lateMs: number) => void) | undefined;
  private leading = false;
  private readonly isOpen: ((instrument: PricedInstrument, at: Date) => boolean) | undefined;
  /** Instruments a tick found closed: their price stands still until their market opens. */
  private readonly closed = new Set<number>();
  /** Names this engine in its broadcasts, so that it skips its own. */
  readonly id = randomUUID();

  constructor(
    readonly settings: EngineSettings,
    private readonly clock: Clock,
    options: EngineOptions | ((error: unknown) => void) = {},
  ) {
    const opts = typeof options === "function" ? { onError: options } : options;
    this.onError = opts.onError ?? (() => {});
    this.leadership = opts.leadership;
    this.onTickLag = opts.onTickLag;
    this.isOpen = opts.isOpen;
    this.source = new RandomWalkSource(settings.seed, settings.volatility);
  }

  /** Whether the last timed tick found this instance leading (always, once started, when alone). */
  get isLeader(): boolean {
    return this.leading;
  }

  get steps(): number {
    return this.step;
  }

  /** Replaces the price source (a recorded series, an external feed); prices continue from where they are. */
  useSource(source: PriceSource): void {
    this.source = source;
  }

  /** Adds instruments not priced yet, at their seed price. */
  register(instruments: readonly PricedInstrument[]): void {
    const date = this.clock.now();
    for (const instrument of instruments) {
      if (this.states.has(instrument.instrumentId)) continue;
      const applied = this.appliedUnknown.get(instrument.instrumentId);
      this.appliedUnknown.delete(instrument.instrumentId);
      const state: InstrumentState = {
        instrument,
        quote: applied ?? this.quoteFor(instrument, instrument.priceSeed, date.toISOString()),
        candles: new CandleSeries(),
      };
      state.candles.add(applied ? Date.parse(applied.date) : date.getTime(), state.quote.mid);
      this.states.set(instrument.instrumentId, state);
    }
  }

  /**
   * Every priced instrument back at its seed price with fresh candles (the sandbox's world reset);
   * the step goes on, so price ids keep increasing.
   */
  restartPrices(): void {
    const date = this.clock.now();
    for (const state of this.states.values()) {
      state.quote = this.quoteFor(state.instrument, state.instrument.priceSeed, date.toISOString());
      state.candles = new CandleSeries();
      state.candles.add(date.getTime(), state.quote.mid);
    }
  }

  has(instrumentId: number): boolean {
    return this.states.has(instrumentId);
  }

  quote(instrumentId: number): Quote | undefined {
    return this.states.get(instrumentId)?.quote;
  }

  onTick(listener: TickListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** One tick of the feed; resolves when every listener has run. Ticks never overlap. */
  async tick(options: TickOptions = {}): Promise<Quote[]> {
    while (this.running) await this.running;
    const work = this.runTick(options);
    this.running = work;
    try {
      return await work;
    } finally {
      this.running = undefined;
    }
  }

  private async runTick(options: TickOptions): Promise<Quote[]> {
    this.step += 1;
    const now = this.clock.now();
    const date = now.toISOString();
    const moved: Quote[] = [];
    const reopened = new Set<number>();
    for (const state of this.states.values()) {
      const id = state.instrument.instrumentId;
      if (options.only && !options.only.has(id)) continue;
      if (this.isOpen && !this.isOpen(state.instrument, now)) {
        this.closed.add(id);
        continue;
      }
      if (this.closed.delete(id)) reopened.add(id);
      const next = this.source.next(state.instrument, state.quote.mid, this.step, options);
      if (next === undefined) continue;
      if (typeof next === "object") {
        const quote = this.twoSided(state.instrument, next, date);
        if (!quote) continue;
        state.quote = quote;
      } else {
        if (!(next > 0) || !Number.isFinite(next)) continue;
        state.quote = this.quoteFor(state.instrument, next, date);
      }
      state.candles.add(now.getTime(), state.quote.mid);
      moved.push(state.quote);
    }
    const info =
      reopened.size > 0 ? { step: this.step, applied: false, reopened } : { step: this.step, applied: false };
    for (const listener of this.listeners) await listener(moved, info);
    return moved;
  }

  /**
   * Takes over a tick of the leading instance: the same quotes, candles and step as there. A
   * broadcast older than the step reached here is ignored. A follower that becomes leader
   * continues from the last quotes it applied.
   */
  async apply(step: number, quotes: readonly Quote[]): Promise<boolean> {
    while (this.running) await this.running;
    if (step <= this.step) return false;
    const work = this.runApplied(step, quotes);
    this.running = work;
    try {
      await work;
      return true;
    } finally {
      this.running = undefined;
    }
  }

  private async runApplied(step: number, quotes: readonly Quote[]): Promise<void> {
    this.step = step;
    const applied: Quote[] = [];
    for (const q of quotes) {
      const quote: Quote = {
        instrumentId: q.instrumentId,
        bid: q.bid,
        ask: q.ask,
        mid: q.mid,
        date: q.date,
        priceRateId: q.priceRateId,
      };
      const state = this.states.get(q.instrumentId);
      if (!state) {
        this.appliedUnknown.set(q.instrumentId, quote);
        continue;
      }
      state.quote = quote;
      state.candles.add(Date.parse(quote.date), quote.mid);
      applied.push(quote);
    }
    for (const listener of this.listeners) await listener(applied, { step, applied: true });
  }

  /**
   * A timed tick: only while this instance holds the leadership (always, alone). `dueAt` is when
   * the timer should have started it (performance.now()); how late it starts is reported.
   */
  private async timedTick(dueAt: number): Promise<void> {
    this.leading = this.leadership ? await this.leadership.acquire() : true;
    if (!this.leading || !this.timer) return;
    this.onTickLag?.(Math.max(0, performance.now() - dueAt));
    await this.tick();
  }

  /** Ticks every `tickMs`; a tick still running when the next is due delays it (no pile-up). */
  start(): void {
    if (this.timer || this.settings.tickMs <= 0) return;
    const tickMs = this.settings.tickMs;
    // Node re-arms an interval from the moment it fires: each firing is due tickMs after the last.
    let dueAt = performance.now() + tickMs;
    this.timer = setInterval(() => {
      const due = dueAt;
      dueAt = performance.now() + tickMs;
      if (this.running || this.timing) return;
      this.timing = this.timedTick(due)
        .catch(this.onError)
        .finally(() => {
          this.timing = undefined;
        });
    }, this.settings.tickMs);
    this.timer.unref();
  }

  /** Stops ticking and gives the leadership up at once, so another instance takes over. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    while (this.timing || this.running) await (this.timing ?? this.running)?.catch(() => {});
    this.leading = false;
    await this.leadership?.close();
  }

  candles(instrumentId: number, interval: CandleInterval, count: number, direction: "asc" | "desc"): Candle[] {
    return this.states.get(instrumentId)?.candles.recent(interval, count, direction) ?? [];
  }

  /** An exact bid and ask, rounded to the precision; none unless both are positive with ask ≥ bid. */
  private twoSided(instrument: PricedInstrument, price: TwoSidedPrice, date: string): Quote | undefined {
    const bid = round(price.bid, instrument.precision);
    const ask = round(price.ask, instrument.precision);
    if (!(bid > 0) || !(ask >= bid) || !Number.isFinite(ask)) return undefined;
    const mid = round((bid + ask) / 2, instrument.precision + 2);
    return { instrumentId: instrument.instrumentId, bid, ask, mid, date, priceRateId: this.step };
  }

  private quoteFor(instrument: PricedInstrument, rawMid: number, date: string): Quote {
    const pip = 10 ** -instrument.precision;
    const mid = round(rawMid, instrument.precision + 2);
    const half = (mid * this.settings.spreadBps) / 20_000;
    const bid = round(mid - half, instrument.precision);
    // A quote always has a positive spread of at least one pip.
    const ask = Math.max(round(mid + half, instrument.precision), round(bid + pip, instrument.precision));
    return { instrumentId: instrument.instrumentId, bid, ask, mid, date, priceRateId: this.step };
  }
}
