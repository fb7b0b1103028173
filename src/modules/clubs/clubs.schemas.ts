import { type Static, Type } from "typebox";
import { CLUB_TIERS, DELIVERY_METHODS, OFFER_TYPES } from "../../config/clubs.js";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Tier = Type.Enum(CLUB_TIERS);
const OfferType = Type.Enum(OFFER_TYPES);
const Delivery = Nullable(Type.Enum(DELIVERY_METHODS));
const OfferStatus = Type.Enum([
  "Pending",
  "Available",
  "Reserved",
  "Claimed",
  "Expired",
  "Claim Cancelled",
  "Inventory Order Cancelled",
] as const);

const ClubInfo = Type.Object({
  name: Tier,
  minRealizedEquity: Nullable(Type.Integer()),
  maxRealizedEquity: Nullable(Type.Integer()),
  rank: Type.Integer({ description: "1 for the lowest tier" }),
});

const ClubOffer = Type.Object({
  id: Type.String(),
  displayName: Type.String(),
  description: Nullable(Type.String()),
  status: OfferStatus,
  type: OfferType,
  subType: Nullable(Type.Union([Type.Literal("High"), Type.Literal("Low")])),
  deliveryMethod: Delivery,
  minimumClubLevel: Tier,
  offerUrl: Nullable(Type.String()),
  offersInBundle: Type.Null(),
  subOffers: Type.Null(),
});

const StaticEligibleOffer = Type.Object({
  id: Type.String(),
  displayName: Type.String(),
  description: Nullable(Type.String()),
  status: OfferStatus,
  type: OfferType,
  deliveryMethod: Delivery,
  eligibleClubLevels: Type.Array(Tier),
});

const Webinar = Type.Object({
  id: Type.Integer(),
  topic: Type.String(),
  startTime: Type.String({ format: "date-time" }),
  joinUrl: Nullable(Type.String({ description: "Upcoming webinars only" })),
  recordUrl: Nullable(Type.String({ description: "Past webinars only" })),
});

export const ClubDashboard = Type.Object(
  {
    clubs: Type.Array(ClubInfo, { description: "Every tier, lowest first, by realized equity in USD" }),
    contacts: Type.Object({
      manager: Nullable(
        Type.Object({
          firstName: Type.String(),
          lastName: Type.String(),
          email: Type.String(),
          calendarUrl: Nullable(Type.String()),
          avatars: Type.Array(Type.Object({})),
        }),
      ),
    }),
    downgradeRisk: Type.Object({
      isAtRisk: Type.Boolean(),
      daysUntilDowngrade: Nullable(Type.Integer({ description: "Present only when isAtRisk is true" })),
    }),
    offers: Type.Object({
      currentPlayerLevelAvailableOffers: Type.Array(ClubOffer),
      nextPlayerLevelAvailableOffers: Type.Array(ClubOffer),
      staticEligibleOffers: Type.Array(StaticEligibleOffer),
    }),
    webinars: Type.Object({
      upcomingWebinars: Type.Array(Webinar, { description: "Soonest first" }),
      previousWebinars: Type.Array(Webinar, { description: "Latest first" }),
    }),
    currentClub: Type.Enum(CLUB_TIERS, {
      description: "Extension of this server: the caller's tier now (upstream leaves it to be inferred)",
    }),
  },
  { description: "Club dashboard data for the caller" },
);
export type ClubDashboard = Static<typeof ClubDashboard>;
