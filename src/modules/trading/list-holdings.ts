import type { Deps } from "../context.js";
import { holdingsRepository } from "./holdings.repository.js";

/**
 * The instruments each of `userIds` holds an open demo position in (users holding none are
 * absent). For other modules' reads: recommendations (decision 0137).
 */
export async function listHoldings(deps: Deps, userIds: readonly string[]): Promise<Map<string, Set<number>>> {
  const out = new Map<string, Set<number>>();
  for (const row of await holdingsRepository(deps.db.kysely).openInstrumentsOf(userIds)) {
    const set = out.get(row.userId) ?? new Set<number>();
    set.add(row.instrumentId);
    out.set(row.userId, set);
  }
  return out;
}
