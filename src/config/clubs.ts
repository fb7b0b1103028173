/** The club programme (docs/decisions/0120): CLUBS_FILE, a JSON file replacing the default. */

import { readFileSync } from "node:fs";
import { type Static, Type } from "typebox";
import { Value } from "typebox/value";
import type { Pick } from "./shared.js";

/** Upstream's tier names; `Internal` (staff) is never given by this server. */
export const CLUB_TIERS = ["Internal", "Bronze", "Silver", "Gold", "Platinum", "PlatinumPlus", "Diamond"] as const;
export type ClubTier = (typeof CLUB_TIERS)[number];

export const OFFER_TYPES = [
  "Entertainment",
  "Gifts",
  "News",
  "Signals",
  "Tools",
  "Exclusive events",
  "Tickets",
  "Zoom meetings",
  "Educational",
  "Services",
  "Association Membership",
  "Financial",
  "Travel",
  "Gift card",
  "Client meetup",
  "Emotional",
  "Bundle",
] as const;
export const DELIVERY_METHODS = ["Inventory Managed", "On-demand", "Static", "API"] as const;

const Tier = Type.Enum(CLUB_TIERS);
const OfferType = Type.Enum(OFFER_TYPES);
const Delivery = Type.Enum(DELIVERY_METHODS);
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

/**
 * The club programme an operator configures (CLUBS_FILE, a JSON file of this shape; the default is
 * DEFAULT_CLUB_PROGRAMME): the tiers by realized equity in USD, how long a user keeps a tier after
 * falling below it, the account manager, the offers and the webinars (docs/decisions/0120).
 */
export const ClubProgramme = Type.Object(
  {
    tiers: Type.Array(
      Type.Object(
        {
          name: Tier,
          minRealizedEquity: Type.Integer({ minimum: 0 }),
          maxRealizedEquity: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 7 },
    ),
    downgradeGraceDays: Type.Integer({ minimum: 0, maximum: 365 }),
    manager: Type.Union([
      Type.Object(
        {
          fromTier: Tier,
          firstName: Text(100),
          lastName: Text(100),
          email: Type.String({ format: "email", maxLength: 200 }),
          calendarUrl: Type.Union([Type.String({ format: "uri", maxLength: 500 }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    offers: Type.Array(
      Type.Object(
        {
          id: Text(40),
          displayName: Text(200),
          description: Type.Union([Text(2000), Type.Null()]),
          type: OfferType,
          subType: Type.Union([Type.Literal("High"), Type.Literal("Low"), Type.Null()]),
          deliveryMethod: Type.Union([Delivery, Type.Null()]),
          minimumClubLevel: Tier,
          offerUrl: Type.Union([Type.String({ format: "uri", maxLength: 500 }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { maxItems: 500 },
    ),
    staticOffers: Type.Array(
      Type.Object(
        {
          id: Text(40),
          displayName: Text(200),
          description: Type.Union([Text(2000), Type.Null()]),
          type: OfferType,
          deliveryMethod: Type.Union([Delivery, Type.Null()]),
          eligibleClubLevels: Type.Array(Tier, { minItems: 1 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 500 },
    ),
    webinars: Type.Array(
      Type.Object(
        {
          id: Type.Integer({ minimum: 1 }),
          topic: Text(300),
          startTime: Type.String({ format: "date-time" }),
          joinUrl: Type.Union([Type.String({ format: "uri", maxLength: 500 }), Type.Null()]),
          recordUrl: Type.Union([Type.String({ format: "uri", maxLength: 500 }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);
export type ClubProgramme = Static<typeof ClubProgramme>;

/**
 * What a fresh server offers: upstream's published tiers (realized equity in USD, the upper bound
 * exclusive) and a sandbox's worth of offers and webinars, all example.com addresses.
 */
export const DEFAULT_CLUB_PROGRAMME: ClubProgramme = {
  tiers: [
    { name: "Bronze", minRealizedEquity: 0, maxRealizedEquity: 5_000 },
    { name: "Silver", minRealizedEquity: 5_000, maxRealizedEquity: 10_000 },
    { name: "Gold", minRealizedEquity: 10_000, maxRealizedEquity: 25_000 },
    { name: "Platinum", minRealizedEquity: 25_000, maxRealizedEquity: 50_000 },
    { name: "PlatinumPlus", minRealizedEquity: 50_000, maxRealizedEquity: 250_000 },
    { name: "Diamond", minRealizedEquity: 250_000, maxRealizedEquity: null },
  ],
  downgradeGraceDays: 30,
  manager: {
    fromTier: "Platinum",
    firstName: "Sandbox",
    lastName: "Manager",
    email: "club-manager@example.com",
    calendarUrl: "https://calendar.example.com/club",
  },
  offers: [
    {
      id: "1",
      displayName: "Market news digest",
      description: "A daily summary of the sandbox market's moves.",
      type: "News",
      subType: null,
      deliveryMethod: "Static",
      minimumClubLevel: "Silver",
      offerUrl: "https://club.example.com/offers/1",
    },
    {
      id: "2",
      displayName: "Charting tools",
      description: "Advanced charting for every instrument of the sandbox.",
      type: "Tools",
      subType: "Low",
      deliveryMethod: "On-demand",
      minimumClubLevel: "Gold",
      offerUrl: "https://club.example.com/offers/2",
    },
    {
      id: "3",
      displayName: "Analyst meetings",
      description: "Monthly calls with the sandbox's analysts.",
      type: "Zoom meetings",
      subType: "High",
      deliveryMethod: "Inventory Managed",
      minimumClubLevel: "Platinum",
      offerUrl: "https://club.example.com/offers/3",
    },
    {
      id: "4",
      displayName: "Trading signals",
      description: "Signals from the sandbox's research desk.",
      type: "Signals",
      subType: "High",
      deliveryMethod: "API",
      minimumClubLevel: "PlatinumPlus",
      offerUrl: "https://club.example.com/offers/4",
    },
    {
      id: "5",
      displayName: "Private events",
      description: "Invitations to the sandbox's client events.",
      type: "Exclusive events",
      subType: "High",
      deliveryMethod: "Inventory Managed",
      minimumClubLevel: "Diamond",
      offerUrl: "https://club.example.com/offers/5",
    },
  ],
  staticOffers: [
    {
      id: "80",
      displayName: "Tax return assistance",
      description: "Discounted help with annual tax returns.",
      type: "Financial",
      deliveryMethod: "Static",
      eligibleClubLevels: ["Gold", "Platinum", "PlatinumPlus", "Diamond"],
    },
  ],
  webinars: [
    {
      id: 1001,
      topic: "Reading the order book",
      startTime: "2026-01-15T14:00:00Z",
      joinUrl: null,
      recordUrl: "https://webinars.example.com/recordings/1001",
    },
    {
      id: 1002,
      topic: "Risk management for copy traders",
      startTime: "2027-06-15T14:00:00Z",
      joinUrl: "https://webinars.example.com/join/1002",
      recordUrl: null,
    },
  ],
};

/**
 * The programme of CLUBS_FILE, or the default. A file that is not JSON, or not of the shape, or
 * whose tiers do not cover every amount from 0 upwards exactly once, is a configuration problem.
 */
export function parseClubProgramme(pick: Pick, problems: string[]): ClubProgramme {
  const file = pick(undefined, "CLUBS_FILE");
  if (!file) return DEFAULT_CLUB_PROGRAMME;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    const why = error instanceof SyntaxError ? `is not JSON (${error.message})` : "cannot be read";
    problems.push(`CLUBS_FILE "${file}" ${why}`);
    return DEFAULT_CLUB_PROGRAMME;
  }
  const first = Value.Errors(ClubProgramme, value)[0];
  if (first) {
    problems.push(`CLUBS_FILE "${file}" does not hold a club programme: ${first.instancePath || "/"} ${first.message}`);
    return DEFAULT_CLUB_PROGRAMME;
  }
  const programme = value as ClubProgramme;
  const problem = tiersProblem(programme.tiers);
  if (problem) problems.push(`CLUBS_FILE "${file}": ${problem}`);
  return problem ? DEFAULT_CLUB_PROGRAMME : programme;
}

/** Tiers must start at 0, follow each other without gap or overlap, and end unbounded. */
function tiersProblem(tiers: ClubProgramme["tiers"]): string | undefined {
  const names = new Set(tiers.map((t) => t.name));
  if (names.size !== tiers.length) return "each tier may appear once";
  if (names.has("Internal")) return "Internal is not a tier of realized equity";
  if (tiers[0]!.minRealizedEquity !== 0) return "the first tier must start at 0";
  for (const [i, tier] of tiers.entries()) {
    const next = tiers[i + 1];
    if (CLUB_TIERS.indexOf(tier.name) > CLUB_TIERS.indexOf(next?.name ?? "Diamond")) {
      return "tiers must be listed from the lowest (Bronze) to the highest (Diamond)";
    }
    if (next && tier.maxRealizedEquity !== next.minRealizedEquity) {
      return `${tier.name} must end where ${next.name} starts (maxRealizedEquity ${next.minRealizedEquity})`;
    }
    if (!next && tier.maxRealizedEquity !== null)
      return `the last tier (${tier.name}) must have maxRealizedEquity null`;
  }
  return undefined;
}
