import type { Ctx } from "../../context.js";
import { readableTarget, type Target } from "../../people/privacy/privacy.js";
import { copiesOfLeader } from "../mirrors/copies-of-leader.js";

/**
 * Assets-under-management tiers (decision 0109): the lower bound of each, in USD cents, over the
 * money the copiers hold in the user's copies (cash + open positions' margins). Tier 0 is no money
 * copied.
 */
export const AUM_TIERS: readonly { tier: number; desc: string; fromCents: number }[] = [
  { tier: 0, desc: "None", fromCents: 0 },
  { tier: 1, desc: "Bronze", fromCents: 1 },
  { tier: 2, desc: "Silver", fromCents: 10_000_00 },
  { tier: 3, desc: "Gold", fromCents: 100_000_00 },
  { tier: 4, desc: "Platinum", fromCents: 1_000_000_00 },
  { tier: 5, desc: "Diamond", fromCents: 10_000_000_00 },
];

export function aumTierOf(aumCents: number): { tier: number; desc: string } {
  let found = AUM_TIERS[0]!;
  for (const t of AUM_TIERS) if (aumCents >= t.fromCents) found = t;
  return { tier: found.tier, desc: found.desc };
}

export interface PortfolioCopiers {
  copiers: number;
  aumTier: number;
  aumTierDesc: string;
}

/**
 * How many users copy `username` now and the tier of the money they copy with (upstream's
 * getPortfolioCopiers). The amount itself is never shown (decision 0141): only its tier. Refused as
 * the other portfolio reads are: 404 unknown, private or blocked; 403 portfolio hidden.
 */
export async function readPortfolioCopiers(
  ctx: Ctx,
  username: string,
): Promise<{ target: Target; body: PortfolioCopiers }> {
  const { target } = await readableTarget(ctx, username, { portfolio: true });
  const copies = await copiesOfLeader(ctx, target.user.id);
  const aumCents = copies.reduce((s, c) => s + c.availableCashCents + c.openMarginCents, 0);
  const { tier, desc } = aumTierOf(aumCents);
  return {
    target,
    body: { copiers: new Set(copies.map((c) => c.copierUserId)).size, aumTier: tier, aumTierDesc: desc },
  };
}
