import type { ClubTier } from "../../config/clubs.js";
import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import type { Ctx } from "../context.js";
import { realizedEquityCents } from "../trading/read-account.js";
import { nextStanding, rankOf } from "./club-tiers.js";
import { clubsRepository } from "./clubs.repository.js";
import type { ClubDashboard } from "./clubs.schemas.js";

export const CLUB_SCOPES = ["club:read"] as const;

/**
 * The caller's club dashboard: their tier from the realized equity of their demo account (cash
 * plus the money in open positions), kept through the programme's grace when equity falls under
 * it (docs/decisions/0120), and what the configured programme offers at that tier.
 */
export async function readClubDashboard(ctx: Ctx): Promise<ClubDashboard> {
  const actor = requireUser(ctx.actor, CLUB_SCOPES);
  const programme = ctx.config.clubs;
  const now = ctx.clock.now();
  const equity = Math.floor((await realizedEquityCents(ctx, actor)) / 100);
  const repo = clubsRepository(ctx.db.kysely);
  const stored = await repo.find(actor.userId);
  const previous = stored ? { tier: stored.tier as ClubTier, belowSince: stored.belowSince } : undefined;
  const standing = nextStanding(programme, previous, equity, now);
  if (!stored || stored.tier !== standing.tier || stored.belowSince !== standing.belowSince) {
    await repo.save({
      userId: actor.userId,
      tier: standing.tier,
      belowSince: standing.belowSince,
      updatedAt: isoNow(ctx.clock),
    });
  }

  const rank = rankOf(programme, standing.tier);
  const next = programme.tiers[rank + 1]?.name;
  const offer = (o: (typeof programme.offers)[number], status: "Available" | "Pending") => ({
    ...o,
    status,
    offersInBundle: null,
    subOffers: null,
  });
  const manager = programme.manager && rank >= rankOf(programme, programme.manager.fromTier) ? programme.manager : null;
  const at = now.getTime();
  const upcoming = programme.webinars.filter((w) => Date.parse(w.startTime) > at);
  const previousWebinars = programme.webinars.filter((w) => Date.parse(w.startTime) <= at);
  return {
    clubs: programme.tiers.map((t, i) => ({ ...t, rank: i + 1 })),
    contacts: {
      manager: manager
        ? {
            firstName: manager.firstName,
            lastName: manager.lastName,
            email: manager.email,
            calendarUrl: manager.calendarUrl,
            avatars: [],
          }
        : null,
    },
    downgradeRisk: { isAtRisk: standing.isAtRisk, daysUntilDowngrade: standing.daysUntilDowngrade },
    offers: {
      currentPlayerLevelAvailableOffers: programme.offers
        .filter((o) => rankOf(programme, o.minimumClubLevel) <= rank)
        .map((o) => offer(o, "Available")),
      nextPlayerLevelAvailableOffers: programme.offers
        .filter((o) => next !== undefined && o.minimumClubLevel === next)
        .map((o) => offer(o, "Pending")),
      staticEligibleOffers: programme.staticOffers.map((o) => ({
        ...o,
        status: o.eligibleClubLevels.includes(standing.tier) ? "Available" : "Pending",
      })),
    },
    webinars: {
      upcomingWebinars: upcoming
        .sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime))
        .map((w) => ({ ...w, recordUrl: null })),
      previousWebinars: previousWebinars
        .sort((a, b) => Date.parse(b.startTime) - Date.parse(a.startTime))
        .map((w) => ({ ...w, joinUrl: null })),
    },
    currentClub: standing.tier,
  };
}
