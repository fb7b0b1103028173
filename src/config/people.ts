/** People and performance (docs/decisions/0138–0142): PEOPLE_SNAPSHOT_EVERY_MS, PEOPLE_SEED_HISTORY_DAYS,
 * PEOPLE_SEEDED_TRADING_EVERY_SECONDS (0174). */

import type { Pick } from "./shared.js";

export interface PeopleSettings {
  /** How often the leading instance records today's close of every demo account. */
  snapshotEveryMs: number;
  /** Days of daily history replayed for the seeded traders on first start (0 = none). */
  seedHistoryDays: number;
  /** How often the seeded traders trade on their own, on the leading instance (0 = never; decision 0174). */
  seededTradingEveryMs: number;
}

function whole(pick: Pick, name: string, fallback: string, min: number, max: number, problems: string[]): number {
  const text = pick(undefined, name) ?? fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max} (got "${text}")`);
  }
  return Number(text);
}

export function parsePeopleSettings(pick: Pick, problems: string[]): PeopleSettings {
  return {
    snapshotEveryMs: whole(pick, "PEOPLE_SNAPSHOT_EVERY_MS", "3600000", 1000, 86_400_000, problems),
    seedHistoryDays: whole(pick, "PEOPLE_SEED_HISTORY_DAYS", "365", 0, 800, problems),
    seededTradingEveryMs: whole(pick, "PEOPLE_SEEDED_TRADING_EVERY_SECONDS", "120", 0, 86_400, problems) * 1000,
  };
}
