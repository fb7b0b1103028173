import { type Deps, transact } from "../context.js";
import { closeAllPositions } from "./close-all-positions.js";
import { tradingRepository } from "./trading.repository.js";

/**
 * Resets a user's demo account to a new one (the sandbox, decision 0148): open positions are
 * closed first (so every instance's triggers forget them), then the account, its orders,
 * positions, history and recorded requests are deleted; the next call opens it at DEMO_BALANCE.
 */
export async function resetDemoAccount(deps: Deps, userId: string): Promise<{ closedPositions: number[] }> {
  const closedPositions = await closeAllPositions(deps, userId);
  await transact(deps, async (trx) => tradingRepository(trx).deleteDemoAccount(userId));
  return { closedPositions };
}
