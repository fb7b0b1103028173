import type { Deps } from "../context.js";
import { tierFor } from "./club-tiers.js";
import { clubsRepository } from "./clubs.repository.js";

/**
 * Another user's club as far as others may know it: the tier their own dashboard last settled
 * (grace included), else the programme's tier for `realizedEquityUsd` now. Nothing is written.
 */
export async function clubOfUser(deps: Pick<Deps, "db" | "config">, userId: string, realizedEquityUsd: number) {
  const stored = await clubsRepository(deps.db.kysely).find(userId);
  return stored?.tier ?? tierFor(deps.config.clubs, realizedEquityUsd);
}
