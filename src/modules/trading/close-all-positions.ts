import type { Deps } from "../context.js";
import { closeAtMarket } from "./close-position.js";
import { tradingRepository } from "./trading.repository.js";

/** Closes every open demo position of a user at the market now (the sandbox, decision 0148); returns their ids. */
export async function closeAllPositions(deps: Deps, userId: string): Promise<number[]> {
  const open = await tradingRepository(deps.db.kysely).openPositionsOf(userId);
  const closed: number[] = [];
  for (const position of open) {
    if (await closeAtMarket(deps, position.positionId)) closed.push(position.positionId);
  }
  return closed;
}
