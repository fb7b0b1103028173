import type { Ctx } from "../context.js";
import { resolveUser } from "../identity/user-ref.js";
import { closeAllPositions } from "../trading/close-all-positions.js";
import { resetDemoAccount } from "../trading/reset-demo-account.js";
import { setDemoBalance } from "../trading/set-demo-balance.js";
import { requireOperator, sandboxOf } from "./sandbox-access.js";

/** The account controls (decision 0148): a user is named by username, id or gcid. */

const dollars = (cents: number) => cents / 100;

async function operatorsUser(ctx: Ctx, ref: string) {
  requireOperator(ctx.actor);
  sandboxOf(ctx);
  return resolveUser(ctx.db.kysely, ref);
}

/** Sets the demo cash; `balance` undefined sets it back to DEMO_BALANCE. */
export async function setBalance(ctx: Ctx, ref: string, balance: number | undefined) {
  const user = await operatorsUser(ctx, ref);
  const cents = balance === undefined ? undefined : Math.round(balance * 100);
  const account = await setDemoBalance(ctx, { userId: user.id, gcid: user.gcid }, cents);
  return {
    userId: user.id,
    username: user.username,
    balance: dollars(account.cashCents),
    startingBalance: dollars(account.startingCents),
    realizedPnl: dollars(account.realizedPnlCents),
  };
}

/** Closes every open demo position at the market now, as the owner's own close would. */
export async function closePositionsOf(ctx: Ctx, ref: string) {
  const user = await operatorsUser(ctx, ref);
  return { userId: user.id, closedPositionIds: await closeAllPositions(ctx, user.id) };
}

/** A new demo account: positions closed, history forgotten, cash at DEMO_BALANCE on the next call. */
export async function resetUser(ctx: Ctx, ref: string) {
  const user = await operatorsUser(ctx, ref);
  const { closedPositions } = await resetDemoAccount(ctx, user.id);
  return { userId: user.id, closedPositionIds: closedPositions };
}
