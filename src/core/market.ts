/**
 * The market as every module sees it (`Deps.market`): current quotes, candles and the tick that
 * moves them. The simulated engine (src/modules/market/engine.ts) implements it; trading listens
 * to its ticks. Declared here so that the deps know no module's class.
 */

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
  /** The catalog exchange id, whose sessions decide when the price may move (market hours). */
  exchangeId?: number;
}

/**
 * Where mid prices come from. The default is a seeded random walk; a recorded series or an
 * external feed implements the same interface.
 */
export interface PriceSource {
  /**
   * The next mid price (bid and ask follow from the spread), an exact two-sided price, or
   * undefined to leave the instrument where it is on this tick.
   */
  next(
    instrument: PricedInstrument,
    previousMid: number,
    step: number,
    options?: TickOptions,
  ): number | TwoSidedPrice | undefined;
}

/** How one tick runs: every timed tick uses none; the sandbox's ticks say they are manual. */
export interface TickOptions {
  /** Only these instruments may move on this tick (the others hold). */
  only?: ReadonlySet<number>;
  /** Asked for by the operator (a step, a set price), not the timer: plays even paused scripts. */
  manual?: boolean;
}

/** A price given by both sides (the sandbox's "set the bid and ask"): used as is, rounded to the precision. */
export interface TwoSidedPrice {
  bid: number;
  ask: number;
}

/** The candle intervals of the market-data operations, by their length in milliseconds. */
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

export interface Candle {
  fromDate: string;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Ticks in the candle (the simulated feed has no traded volume). */
  volume: number;
}

/** What a listener learns of a tick besides its quotes. */
export interface TickInfo {
  step: number;
  /**
   * True when the quotes were applied from the leading instance's broadcast rather than ticked
   * here: follow them, but leave acting on them (closing triggered positions) to the leader.
   */
  applied: boolean;
  /**
   * Instruments whose market opened again since their last price: this tick's price is the first
   * after a close, and triggers it crosses fill at it (a gap), not at their level.
   */
  reopened?: ReadonlySet<number>;
}

export type TickListener = (quotes: readonly Quote[], tick: TickInfo) => Promise<void> | void;

export interface Market {
  /** Names this market in its broadcasts, so that it skips its own. */
  readonly id: string;
  /** Ticks so far (the last quote's `priceRateId`). */
  readonly steps: number;
  /** Whether the last timed tick found this instance leading (always, once started, when alone). */
  readonly isLeader: boolean;
  /** Adds instruments not priced yet, at their seed price. */
  register(instruments: readonly PricedInstrument[]): void;
  has(instrumentId: number): boolean;
  /** Every priced instrument back at its seed price with fresh candles; the step goes on. */
  restartPrices(): void;
  quote(instrumentId: number): Quote | undefined;
  /** Up to `count` most recent candles, oldest first (`asc`) or newest first (`desc`). */
  candles(instrumentId: number, interval: CandleInterval, count: number, direction: "asc" | "desc"): Candle[];
  /** Runs `listener` after every tick, ticked or applied; returns its removal. */
  onTick(listener: TickListener): () => void;
  /** One tick of the feed; resolves when every listener has run. Ticks never overlap. */
  tick(options?: TickOptions): Promise<Quote[]>;
  /** Takes over a tick of the leading instance; false when it is not newer than the step reached. */
  apply(step: number, quotes: readonly Quote[]): Promise<boolean>;
  /** Replaces the price source (a recorded series, an external feed); prices continue from where they are. */
  useSource(source: PriceSource): void;
  /** Ticks on a timer while this instance leads. */
  start(): void;
  /** Stops ticking and gives the leadership up. */
  stop(): Promise<void>;
}
