import type { MarketSettings } from "../../config/market.js";
import type { Clock } from "../../core/clock.js";
import type { Market } from "../../core/market.js";
import { RandomWalkSource } from "../market/price-sources.js";
import { FaultBook } from "./fault-book.js";
import { SandboxClock } from "./sandbox-clock.js";
import { SandboxPrices } from "./sandbox-prices.js";

/** What the sandbox keeps in memory (docs/decisions/0148): the price overrides, the clock, the armed faults. */
export interface SandboxState {
  readonly prices: SandboxPrices;
  readonly clock: SandboxClock;
  readonly faults: FaultBook;
}

declare module "../context.js" {
  interface Deps {
    /** The sandbox's controls (SANDBOX=on), or null: then `/sandbox/v1` does not exist. */
    readonly sandbox: SandboxState | null;
  }
}

/** The clock the deps use: the sandbox's adjustable one around `base` when the sandbox is on. */
export const sandboxClockOver = (enabled: boolean, base: Clock): Clock => (enabled ? new SandboxClock(base) : base);

/**
 * Puts the sandbox's price source in front of the market's seeded walk, before the first tick:
 * without a control the prices are the walk's, tick for tick.
 */
export function createSandboxState(clock: Clock, market: Market, settings: MarketSettings): SandboxState | null {
  if (!(clock instanceof SandboxClock)) return null;
  const prices = new SandboxPrices(new RandomWalkSource(settings.seed, settings.volatility));
  market.useSource(prices);
  return { prices, clock, faults: new FaultBook() };
}
