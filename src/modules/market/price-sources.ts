import type { PricedInstrument, PriceSource } from "../../core/market.js";
import { mulberry32 } from "../../core/random.js";

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
