import type { ClubProgramme, ClubTier } from "../../config/clubs.js";

const DAY_MS = 86_400_000;

/** The tier whose band holds `equity` (USD): the lower bound inclusive, the upper exclusive. */
export function tierFor(programme: ClubProgramme, equity: number): ClubTier {
  const band = programme.tiers.find(
    (t) => equity >= t.minRealizedEquity && (t.maxRealizedEquity === null || equity < t.maxRealizedEquity),
  );
  return (band ?? programme.tiers[0]!).name;
}

/** Position of a tier in the programme (its `rank` less one); -1 for a tier it no longer has. */
export const rankOf = (programme: ClubProgramme, tier: string) => programme.tiers.findIndex((t) => t.name === tier);

export interface Membership {
  tier: ClubTier;
  /** When equity was first seen under `tier`: the grace before a downgrade started. */
  belowSince: string | null;
}

export interface Standing extends Membership {
  isAtRisk: boolean;
  /** Whole days left before the downgrade (at least 1) while at risk; null otherwise. */
  daysUntilDowngrade: number | null;
}

/**
 * The membership after seeing `equity` at `now`. Up at once; down only after the grace: equity
 * under the tier starts `downgradeGraceDays` during which the tier is kept and at risk; back
 * within the tier ends the risk; still under it once the grace is over moves to the tier the
 * equity is in. A tier the programme no longer has is replaced at once.
 */
export function nextStanding(
  programme: ClubProgramme,
  previous: Membership | undefined,
  equity: number,
  now: Date,
): Standing {
  const earned = tierFor(programme, equity);
  const held = previous && rankOf(programme, previous.tier) >= 0 ? previous : undefined;
  if (!held || rankOf(programme, earned) >= rankOf(programme, held.tier)) {
    return { tier: earned, belowSince: null, isAtRisk: false, daysUntilDowngrade: null };
  }
  const belowSince = held.belowSince ?? now.toISOString();
  const leftMs = Date.parse(belowSince) + programme.downgradeGraceDays * DAY_MS - now.getTime();
  if (leftMs <= 0) return { tier: earned, belowSince: null, isAtRisk: false, daysUntilDowngrade: null };
  return { tier: held.tier, belowSince, isAtRisk: true, daysUntilDowngrade: Math.ceil(leftMs / DAY_MS) };
}
