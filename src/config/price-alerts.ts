/** Price alerts (docs/decisions/0121): PRICE_ALERTS_MAX_PER_USER. */

import type { Pick } from "./shared.js";

export interface PriceAlertSettings {
  /** Active alerts one user may have at once. */
  maxPerUser: number;
}

export function parsePriceAlertSettings(pick: Pick, problems: string[]): PriceAlertSettings {
  const text = pick(undefined, "PRICE_ALERTS_MAX_PER_USER") ?? "100";
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 100_000) {
    problems.push(`PRICE_ALERTS_MAX_PER_USER must be a whole number from 1 to 100000 (got "${text}")`);
  }
  return { maxPerUser: Number(text) };
}
