/** Market hours (MARKET_HOURS): whether instruments trade in their exchanges' sessions. */

import type { Pick } from "./shared.js";

export interface MarketHoursSettings {
  /**
   * `exchange`: every instrument trades in its exchange's sessions (crypto always); `always`: every
   * market is always open. Default: `exchange` in production (NODE_ENV=production), `always`
   * otherwise, so development runs and the README's tours trade stocks at any hour (decision 0128).
   */
  mode: "exchange" | "always";
}

export function parseMarketHoursSettings(pick: Pick, production: boolean, problems: string[]): MarketHoursSettings {
  const text = pick(undefined, "MARKET_HOURS");
  if (text === undefined) return { mode: production ? "exchange" : "always" };
  if (text === "exchange" || text === "always") return { mode: text };
  problems.push(`MARKET_HOURS must be exchange or always (got "${text}")`);
  return { mode: "always" };
}
