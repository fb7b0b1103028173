/** The social read cache (docs/decisions/0080): READ_CACHE_MB and READ_CACHE_MAX_AGE_MS. */

import type { Pick } from "./shared.js";

export interface ReadCacheSettings {
  /** Budget of cached answers, in bytes of their bodies; 0 turns the cache off. */
  maxBytes: number;
  /** Longest an answer is served without a change heard, in case one was lost with the bus. */
  maxAgeMs: number;
}

const MB = 1024 * 1024;

export function parseReadCacheSettings(pick: Pick, problems: string[]): ReadCacheSettings {
  const mbText = pick(undefined, "READ_CACHE_MB") ?? "64";
  if (!/^\d+$/.test(mbText) || Number(mbText) > 4096) {
    problems.push(`READ_CACHE_MB must be a whole number of megabytes from 0 (off) to 4096 (got "${mbText}")`);
  }
  const ageText = pick(undefined, "READ_CACHE_MAX_AGE_MS") ?? "60000";
  if (!/^\d+$/.test(ageText) || Number(ageText) < 1 || Number(ageText) > 86_400_000) {
    problems.push(`READ_CACHE_MAX_AGE_MS must be a whole number of milliseconds from 1 to 86400000 (got "${ageText}")`);
  }
  return { maxBytes: Number(mbText) * MB, maxAgeMs: Number(ageText) };
}
