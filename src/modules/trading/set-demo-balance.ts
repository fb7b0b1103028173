import type { UserActor } from "../../core/actor.js";
import { isoNow } from "../../core/clock.js";
import { type Deps, transact } from "../context.js";
import { demoAccountOf } from "./demo-account.js";
import { type AccountRow, tradingRepository } from "./trading.repository.js";

/**
 * Sets a user's demo cash (the sandbox, decision 0148), opening the account first if the user
 * never traded; `cents` undefined sets it back to DEMO_BALANCE. Open positions stay as they are.
 */
export async function setDemoBalance(
  deps: Deps,
  user: Pick<UserActor, "userId" | "gcid">,
  cents: number | undefined,
): Promise<AccountRow> {
  return transact(deps, async (trx) => {
    const repo = tradingRepository(trx);
    await demoAccountOf(deps, repo, user);
    await repo.setCash(user.userId, cents ?? deps.config.demo.startingBalanceCents, isoNow(deps.clock));
    return (await repo.findAccount(user.userId))!;
  });
}
