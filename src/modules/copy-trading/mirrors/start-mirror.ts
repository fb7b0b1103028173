import type { UserActor } from "../../../core/actor.js";
import { isoNow } from "../../../core/clock.js";
import type { Executor } from "../../../infra/db/executor.js";
import type { Deps } from "../../context.js";
import { demoAccountIn, demoLedger } from "../../trading/demo-ledger.js";
import { ACTIVE, mirrorsRepository } from "./mirrors.repository.js";

export type StartRefusal = "InsufficientCash" | "TooManyCopies";

/**
 * Inside the caller's transaction: moves `investmentCents` from the copier's demo cash into a new
 * mirror of `parentUserId`. Returns the mirror id, or why it could not start.
 */
export async function startMirror(
  deps: Deps,
  trx: Executor,
  copier: UserActor,
  input: { parentUserId: string; investmentCents: number; stopLossCents: number; agentPortfolioId: string | null },
): Promise<number | StartRefusal> {
  const mirrors = mirrorsRepository(trx);
  const trading = demoLedger(trx);
  if ((await mirrors.mirrorsOfCopier(copier.userId)).length >= deps.config.copyTrading.maxCopiesPerUser) {
    return "TooManyCopies";
  }
  await demoAccountIn(deps, trx, copier);
  const now = isoNow(deps.clock);
  if (!(await trading.debit(copier.userId, input.investmentCents, now))) return "InsufficientCash";
  return mirrors.insertMirror({
    copierUserId: copier.userId,
    parentUserId: input.parentUserId,
    agentPortfolioId: input.agentPortfolioId,
    status: ACTIVE,
    initialInvestmentCents: input.investmentCents,
    depositCents: 0,
    withdrawalCents: 0,
    availableCashCents: input.investmentCents,
    closedPnlCents: 0,
    stopLossCents: input.stopLossCents,
    startedAt: now,
    stoppedAt: null,
    updatedAt: now,
  });
}
