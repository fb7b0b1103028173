import { randomUUID } from "node:crypto";
import type { Clock } from "../../core/clock.js";

/** A two-sided price of one instrument at one tick. */
export interface Quote {
  instrumentId: number;
  bid: number;
  ask: number;
  mid: number;
  date: string;
  /** Increases by one on every tick of the feed; identifies the price a trade executed at. */
  priceRateId: number;
}

/** What the engine needs to know of an instrument to price it. */
export interface PricedInstrument {
  instrumentId: number;
  priceSeed: number;
  /** Decimal places of the quote. */
  precision: number;
  /** Multiplies the configured volatility (crypto moves more than currencies). */
  volatilityFactor: number;
}

/**
 * Where mid prices come from. The default is a seeded random walk; a recorded series or an
 * external feed implements the same interface.
 */
export interface PriceSource {
  /** The next mid price, or undefined to leave the instrument where it is on this tick. */
  next(instrument: PricedInstrument, previousMid: number, step: number): number | undefined;
}

export interface EngineSettings {
  seed: number;
  volatility: number;
  spreadBps: number;
  tickMs: number;
}

/** A 32-bit seeded generator (mulberry32): tiny, fast and reproducible across platforms. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Geometric random walk, one independent generator per instrument (seeded from the feed's seed
 * and the instrument id), so an instrument's path does not depend on which others are priced.
 */
export class RandomWalkSource implements PriceSource {
  private readonly generators = new Map<number, () => number>();

  constructor(
    private readonly seed: number,
    private readonly volatility: number,
  ) {}

  next(instrument: PricedInstrument, previousMid: number): number {
    let random = this.generators.get(instrument.instrumentId);
    if (!random) {
      random = mulberry32((Math.imul(this.seed ^ 0x9e3779b9, 31) + instrument.instrumentId * 2654435761) >>> 0);
      this.generators.set(instrument.instrumentId, random);
    }
    // Box–Muller: a standard normal draw from two uniforms.
    const u = 1 - random();
    const v = random();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    const sigma = this.volatility * instrument.volatilityFactor;
    return previousMid * Math.exp(sigma * z - (sigma * sigma) / 2);
  }
}

/**
 * Replays recorded mid prices: the n-th tick of the feed gives `series[id][n - 1]`; after the
 * end of its series (or without one) an instrument holds its price.
 */
export class RecordedSource implements PriceSource {
  private readonly series: Map<number, readonly number[]>;
  private readonly startStep: number;

  constructor(series: Record<number, readonly number[]> | Map<number, readonly number[]>, startStep = 0) {
    this.series = series instanceof Map ? series : new Map(Object.entries(series).map(([k, v]) => [Number(k), v]));
    this.startStep = startStep;
  }

  next(instrument: PricedInstrument, _previousMid: number, step: number): number | undefined {
    return this.series.get(instrument.instrumentId)?.[step - this.startStep - 1];
  }
}

export const CANDLE_INTERVALS = {
  OneMinute: 60_000,
  FiveMinutes: 300_000,
  TenMinutes: 600_000,
  FifteenMinutes: 900_000,
  ThirtyMinutes: 1_800_000,
  OneHour: 3_600_000,
  FourHours: 14_400_000,
  OneDay: 86_400_000,
  OneWeek: 604_800_000,
} as const;
export type CandleInterval = keyof typeof CANDLE_INTERVALS;
const INTERVAL_NAMES = Object.keys(CANDLE_INTERVALS) as CandleInterval[];
/** Weeks start on Monday: the first Monday after the Unix epoch (a Thursday) was 4 days in. */
const WEEK_OFFSET = 4 * 86_400_000;
export const MAX_CANDLES = 1000;

export interface Candle {
  fromDate: string;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Ticks in the candle (the simulated feed has no traded volume). */
  volume: number;
}

interface OpenCandle {
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

interface InstrumentState {
  instrument: PricedInstrument;
  quote: Quote;
  candles: Map<CandleInterval, OpenCandle[]>;
}

/** What a listener learns of a tick besides its quotes. */
export interface TickInfo {
  step: number;
  /**
   * True when the quotes were applied from the leading instance's broadcast rather than ticked
   * here: follow them, but leave acting on them (closing triggered positions) to the leader.
   */
  applied: boolean;
}

export type TickListener = (quotes: readonly Quote[], tick: TickInfo) => Promise<void> | void;

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
export class MarketEngine {
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
  private leading = false;
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
        candles: new Map(),
      };
      this.foldIntoCandles(state, applied ? Date.parse(applied.date) : date.getTime());
      this.states.set(instrument.instrumentId, state);
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
  async tick(): Promise<Quote[]> {
    while (this.running) await this.running;
    const work = this.runTick();
    this.running = work;
    try {
      return await work;
    } finally {
      this.running = undefined;
    }
  }

  private async runTick(): Promise<Quote[]> {
    this.step += 1;
    const now = this.clock.now();
    const date = now.toISOString();
    const moved: Quote[] = [];
    for (const state of this.states.values()) {
      const next = this.source.next(state.instrument, state.quote.mid, this.step);
      if (next === undefined || !(next > 0) || !Number.isFinite(next)) continue;
      state.quote = this.quoteFor(state.instrument, next, date);
      this.foldIntoCandles(state, now.getTime());
      moved.push(state.quote);
    }
    for (const listener of this.listeners) await listener(moved, { step: this.step, applied: false });
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
      this.foldIntoCandles(state, Date.parse(quote.date));
      applied.push(quote);
    }
    for (const listener of this.listeners) await listener(applied, { step, applied: true });
  }

  /** A timed tick: only while this instance holds the leadership (always, alone). */
  private async timedTick(): Promise<void> {
    this.leading = this.leadership ? await this.leadership.acquire() : true;
    if (this.leading && this.timer) await this.tick();
  }

  /** Ticks every `tickMs`; a tick still running when the next is due delays it (no pile-up). */
  start(): void {
    if (this.timer || this.settings.tickMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.running || this.timing) return;
      this.timing = this.timedTick()
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

  /** Up to `count` most recent candles, oldest first (`asc`) or newest first (`desc`). */
  candles(instrumentId: number, interval: CandleInterval, count: number, direction: "asc" | "desc"): Candle[] {
    const list = this.states.get(instrumentId)?.candles.get(interval) ?? [];
    const picked = list.slice(Math.max(0, list.length - count)).map((c) => ({
      fromDate: new Date(c.start).toISOString(),
      open: c.open,
      high: c.high,
      low: c.low,
      close: c.close,
      volume: c.volume,
    }));
    return direction === "desc" ? picked.reverse() : picked;
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

  private foldIntoCandles(state: InstrumentState, time: number): void {
    const price = state.quote.mid;
    for (const interval of INTERVAL_NAMES) {
      const ms = CANDLE_INTERVALS[interval];
      const offset = interval === "OneWeek" ? WEEK_OFFSET : 0;
      const start = Math.floor((time - offset) / ms) * ms + offset;
      let list = state.candles.get(interval);
      if (!list) {
        list = [];
        state.candles.set(interval, list);
      }
      const last = list[list.length - 1];
      if (last && last.start === start) {
        last.high = Math.max(last.high, price);
        last.low = Math.min(last.low, price);
        last.close = price;
        last.volume += 1;
      } else {
        list.push({ start, open: price, high: price, low: price, close: price, volume: 1 });
        if (list.length > MAX_CANDLES) list.shift();
      }
    }
  }
}
