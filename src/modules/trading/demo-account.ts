import type { UserActor } from "../../core/actor.js";
import { isoNow } from "../../core/clock.js";
import type { Deps } from "../context.js";
import { demoCidOf } from "../identity/identity.view.js";
import type { AccountRow, TradingRepository } from "./trading.repository.js";

export const TRADE_SCOPES = ["trade.demo:write", "demo:write"] as const;
export const READ_SCOPES = ["trade.demo:read", "demo:read", "trade.demo:write", "demo:write"] as const;

/** Upstream's order types: 17 = market order to open, 19 = market order to close. */
export const ORDER_TYPE_OPEN = 17;
export const ORDER_TYPE_CLOSE = 19;
/** Demo market orders execute at once: 1 = executed (docs/decisions/0046-order-enums.md). */
export const STATUS_EXECUTED = 1;

/** A user's demo account, opened with the configured balance on first use. */
export async function demoAccountOf(
  deps: Deps,
  repo: TradingRepository,
  actor: Pick<UserActor, "userId" | "gcid">,
): Promise<AccountRow> {
  const now = isoNow(deps.clock);
  const existing = await repo.findAccount(actor.userId);
  if (existing) return existing;
  const starting = deps.config.demo.startingBalanceCents;
  await repo.createAccountIfMissing({
    userId: actor.userId,
    cid: demoCidOf(actor.gcid),
    cashCents: starting,
    startingCents: starting,
    realizedPnlCents: 0,
    createdAt: now,
    updatedAt: now,
  });
  return (await repo.findAccount(actor.userId))!;
}
