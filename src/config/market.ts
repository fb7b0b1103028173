/** The simulated market (MARKET_*) and demo accounts (DEMO_BALANCE). */

import type { Pick } from "./shared.js";

export interface MarketSettings {
  /** Seed of the reproducible random walk: the same seed gives the same prices tick by tick. */
  seed: number;
  /** Milliseconds between ticks; 0 = no timer (ticks only when driven, as tests do). */
  tickMs: number;
  /** Standard deviation of one tick's relative move, before the asset class's factor. */
  volatility: number;
  /** Bid/ask spread in basis points of the mid price. */
  spreadBps: number;
  /** MARKET_LEASE_KEY: the Redis key naming the instance that ticks (default sta:market:leader). */
  leaseKey?: string;
}

export interface DemoSettings {
  /** What a new demo account starts with, in USD cents. */
  startingBalanceCents: number;
  /** IDEMPOTENCY_TTL_HOURS: how long an order's x-request-id is remembered for safe retries. */
  idempotencyTtlHours: number;
}

export function parseMarketSettings(pick: Pick, problems: string[]): MarketSettings {
  const market: MarketSettings = { seed: 42, tickMs: 1000, volatility: 0.0004, spreadBps: 4 };
  const seedText = pick(undefined, "MARKET_SEED");
  if (seedText !== undefined) {
    if (/^\d+$/.test(seedText) && Number(seedText) <= 0xffffffff) market.seed = Number(seedText);
    else problems.push(`MARKET_SEED must be a whole number from 0 to 4294967295 (got "${seedText}")`);
  }
  const tickText = pick(undefined, "MARKET_TICK_MS");
  if (tickText !== undefined) {
    if (/^\d+$/.test(tickText) && (Number(tickText) === 0 || (Number(tickText) >= 10 && Number(tickText) <= 3_600_000)))
      market.tickMs = Number(tickText);
    else problems.push(`MARKET_TICK_MS must be 0 (no timer) or 10 to 3600000 milliseconds (got "${tickText}")`);
  }
  const volText = pick(undefined, "MARKET_VOLATILITY");
  if (volText !== undefined) {
    const v = Number(volText);
    if (/^\d*\.?\d+$/.test(volText) && v >= 0 && v <= 0.1) market.volatility = v;
    else problems.push(`MARKET_VOLATILITY must be a decimal from 0 to 0.1 (got "${volText}")`);
  }
  const spreadText = pick(undefined, "MARKET_SPREAD_BPS");
  if (spreadText !== undefined) {
    const v = Number(spreadText);
    if (/^\d*\.?\d+$/.test(spreadText) && v >= 0 && v <= 1000) market.spreadBps = v;
    else problems.push(`MARKET_SPREAD_BPS must be a number of basis points from 0 to 1000 (got "${spreadText}")`);
  }
  const leaseKey = pick(undefined, "MARKET_LEASE_KEY");
  if (leaseKey !== undefined) {
    if (/^[\x21-\x7e]{1,200}$/.test(leaseKey)) market.leaseKey = leaseKey;
    else problems.push(`MARKET_LEASE_KEY must be 1 to 200 printable characters without spaces (got "${leaseKey}")`);
  }
  return market;
}

export function parseDemoSettings(pick: Pick, problems: string[]): DemoSettings {
  const ttlText = pick(undefined, "IDEMPOTENCY_TTL_HOURS") ?? "24";
  const idempotencyTtlHours = Number(ttlText);
  if (!/^\d+$/.test(ttlText) || idempotencyTtlHours < 1 || idempotencyTtlHours > 8760) {
    problems.push(`IDEMPOTENCY_TTL_HOURS must be a whole number of hours from 1 to 8760 (got "${ttlText}")`);
  }
  const text = pick(undefined, "DEMO_BALANCE") ?? "100000";
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) {
    problems.push(`DEMO_BALANCE must be an amount of USD with at most 2 decimals, e.g. 100000 (got "${text}")`);
    return { startingBalanceCents: 10_000_000, idempotencyTtlHours };
  }
  return {
    startingBalanceCents: Number(match[1]) * 100 + Number((match[2] ?? "0").padEnd(2, "0")),
    idempotencyTtlHours,
  };
}
