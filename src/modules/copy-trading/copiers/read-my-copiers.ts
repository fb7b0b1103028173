import type { Static } from "typebox";
import { requireUser } from "../../../core/access.js";
import { countryName } from "../../../core/countries.js";
import { clubOfUser } from "../../clubs/club-of-user.js";
import type { Ctx } from "../../context.js";
import { userDemographics } from "../../identity/user-demographics.js";
import { demoLedger } from "../../trading/demo-ledger.js";
import { copiesOfLeader, type LeaderCopy } from "../mirrors/copies-of-leader.js";
import type { AGES, AMOUNTS, CopierPublicInfo as CopierInfoSchema, STARTED_AT } from "./copiers.schemas.js";

export const PI_DATA_SCOPES = ["pi-data:read"] as const;

/** One copier as upstream's getCopiersPublicInfo shows them: categories, never who (decision 0176). */
export type CopierPublicInfo = Static<typeof CopierInfoSchema>;
type StartedAt = (typeof STARTED_AT)[number];
type Amount = (typeof AMOUNTS)[number];
type Age = (typeof AGES)[number];

const DAY_MS = 86_400_000;
const money = (cents: number) => String(cents / 100);

export function copyStartedAtCategory(startedAt: string, now: Date): StartedAt {
  const days = (now.getTime() - Date.parse(startedAt)) / DAY_MS;
  if (days < 1) return "less than 1 day";
  if (days < 7) return "less than 1 week";
  if (days < 30) return "less than 1 month";
  if (days < 365) return "less than 1 year";
  return "more than 1 year";
}

/** The copy's net funding (USD) in upstream's bands; a band's lower bound belongs to it. */
export function amountCategory(netFundingCents: number): Amount {
  const usd = netFundingCents / 100;
  if (usd < 100) return "<100";
  if (usd < 500) return "100-500";
  if (usd < 1000) return "500-1000";
  if (usd <= 5000) return "1000-5000";
  return ">5000";
}

/** Whole years between a birth date and now, in upstream's bands; undefined when not given. */
export function ageCategory(dateOfBirth: string, now: Date): Age | undefined {
  const born = /^(\d{4})-(\d{2})-(\d{2})/.exec(dateOfBirth);
  if (!born) return undefined;
  const [y, m, d] = [Number(born[1]), Number(born[2]), Number(born[3])];
  let age = now.getUTCFullYear() - y;
  if (now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d)) age -= 1;
  if (age < 18) return "Under 18";
  if (age < 30) return "18-29";
  if (age < 45) return "30-44";
  if (age < 60) return "45-59";
  return "60+";
}

const GENDERS: Record<number, string> = { 1: "M", 2: "F" };

/**
 * The users copying the caller now (active or paused copies; agent portfolios are not people),
 * oldest copy first: upstream's getCopiersPublicInfo (`GET /api/v1/pi-data/copiers`). Each copy is
 * one entry, described only in categories; `CopyRealizedEquity_pnl` is the copy's realised P/L and
 * `AvailableCopyBalance` its cash, both in USD as text, as upstream's schema has them.
 */
export async function readMyCopiers(ctx: Ctx): Promise<{ copiers: CopierPublicInfo[] }> {
  const actor = requireUser(ctx.actor, PI_DATA_SCOPES);
  const copies = await copiesOfLeader(ctx, actor.userId);
  const people = await userDemographics(
    ctx,
    copies.map((c) => c.copierUserId),
  );
  const now = ctx.clock.now();
  const ledger = demoLedger(ctx.db.kysely);
  const clubs = new Map<string, string>();
  for (const copierId of new Set(copies.map((c) => c.copierUserId))) {
    const account = await ledger.findAccount(copierId);
    const invested = (await ledger.openPositionsOf(copierId)).reduce((s, p) => s + p.amountCents, 0);
    clubs.set(copierId, await clubOfUser(ctx, copierId, Math.floor(((account?.cashCents ?? 0) + invested) / 100)));
  }
  return { copiers: copies.map((c) => describe(c, people.get(c.copierUserId), clubs.get(c.copierUserId), now)) };
}

function describe(
  copy: LeaderCopy,
  person: { gender: number; dateOfBirth: string; countryCode: number } | undefined,
  club: string | undefined,
  now: Date,
): CopierPublicInfo {
  const info: CopierPublicInfo = {
    CopyStartedAtCategory: copyStartedAtCategory(copy.startedAt, now),
    AmountCategory: amountCategory(copy.netFundingCents),
    CopyRealizedEquity_pnl: money(copy.closedPnlCents),
    AvailableCopyBalance: money(copy.availableCashCents),
  };
  const gender = person ? GENDERS[person.gender] : undefined;
  if (gender) info.Gender = gender;
  if (club) info.Club = club;
  const country = person ? countryName(person.countryCode) : undefined;
  if (country) info.Country = country;
  const age = person ? ageCategory(person.dateOfBirth, now) : undefined;
  if (age) info.AgeCategory = age;
  return info;
}
