import { type Static, type TSchema, Type } from "typebox";
import { Int32 } from "../../http/schemas.js";
import { PERIODS } from "./history/returns.js";

const Enum = <T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const PeriodParam = Enum(PERIODS, {
  description:
    "CurrMonth/CurrQuarter/CurrYear: since the start of the month/quarter/year; LastYear: the previous calendar " +
    "year; OneMonthAgo…OneYearAgo, LastTwoYears: the rolling 1, 2, 3, 6, 12 or 24 months to today (UTC)",
});

export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 64 }) });

/** The most usernames or cids one lookup may name (decision 0140). */
export const PEOPLE_LOOKUP_MAX = 50;

export const PeopleQuery = Type.Object({
  usernames: Type.Optional(
    Type.String({
      maxLength: 4000,
      description: `Comma-separated usernames (at most ${PEOPLE_LOOKUP_MAX}); or cidList`,
    }),
  ),
  cidList: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: `Comma-separated customer ids (gcid, realCID or demoCID; at most ${PEOPLE_LOOKUP_MAX}); or usernames`,
    }),
  ),
});
export type PeopleQuery = Static<typeof PeopleQuery>;

const Avatar = Type.Object({
  url: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  type: Enum(["Original", "OriginalCropped", "Resized", "Retouched"] as const),
});

const UserBio = Type.Object({
  gcid: Type.Integer(),
  languageCode: Nullable(Type.String()),
  aboutMe: Nullable(Type.String()),
  aboutMeShort: Nullable(Type.String()),
  strategyID: Nullable(Type.Integer()),
});

export const PersonInfo = Type.Object({
  gcid: Type.Integer(),
  realCID: Type.Integer(),
  demoCID: Nullable(Type.Integer()),
  username: Type.String(),
  language: Nullable(Type.Integer()),
  languageIsoCode: Type.String(),
  country: Nullable(Type.Integer()),
  allowDisplayFullName: Type.Boolean(),
  userBio: UserBio,
  whiteLabel: Nullable(Type.Integer()),
  optOut: Type.Boolean({ description: "The user opted out of portfolio exposure (their portfolio reads answer 403)" }),
  homepage: Nullable(Type.Integer()),
  playerStatus: Nullable(Type.Integer()),
  piLevel: Nullable(Type.Integer()),
  isPi: Type.Boolean(),
  avatars: Type.Array(Avatar),
  masterAccountCid: Nullable(Type.Integer()),
  accountType: Nullable(Type.Integer()),
  fundType: Nullable(Type.String()),
  isVerified: Type.Boolean(),
  verificationLevel: Type.Integer(),
  accountStatus: Nullable(Type.Integer()),
  gdprInfo: Type.Null(),
  firstName: Nullable(Type.String()),
  middleName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  aboutMe: Nullable(Type.String()),
  aboutMeShort: Nullable(Type.String()),
  customerRestrictions: Nullable(Type.Array(Type.Object({}))),
  copyBlock: Type.Boolean({ description: "Extension: the user refuses to be copied" }),
});
export type PersonInfo = Static<typeof PersonInfo>;

export const PeopleResult = Type.Object({ users: Type.Array(PersonInfo) });

const Bool = (description: string) => Type.Optional(Type.Boolean({ description }));
const Pct = (description: string) => Type.Optional(Int32({ minimum: -100_000, maximum: 100_000, description }));
const Risk = (description: string) => Type.Optional(Int32({ minimum: 1, maximum: 10, description }));

export const SEARCH_SORTS = [
  "gain",
  "dailyGain",
  "thisWeekGain",
  "riskScore",
  "maxDailyRiskScore",
  "maxMonthlyRiskScore",
  "copiers",
  "weeksSinceRegistration",
  "profitableMonthsPct",
  "userName",
] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

export const SearchQuery = Type.Object({
  period: PeriodParam,
  isTestAccount: Bool("true: none (every account here is a demo account of a registered user); false: all"),
  optIn: Bool("true: only users whose portfolio is public; false: only those who opted out"),
  blocked: Bool("true: none (no account is blocked by the platform); false: all"),
  page: Int32({ minimum: 1, maximum: 100_000, default: 1 }),
  pageSize: Int32({ minimum: 1, maximum: 100, default: 10 }),
  sort: Type.Optional(
    Type.String({
      pattern: `^-?(${SEARCH_SORTS.join("|")})$`,
      description: `A field to sort by, descending with a leading "-": ${SEARCH_SORTS.join(", ")} (default -gain)`,
    }),
  ),
  popularInvestor: Bool("Only Popular Investors (true) or only others (false)"),
  gainMax: Pct("Gain over the period at most this many percent"),
  gainMin: Pct("Extension: gain over the period at least this many percent"),
  maxDailyRiskScoreMin: Risk("Highest daily risk score in the period at least"),
  maxDailyRiskScoreMax: Risk("Highest daily risk score in the period at most"),
  maxMonthlyRiskScoreMin: Risk("Highest monthly risk score in the period at least"),
  maxMonthlyRiskScoreMax: Risk("Highest monthly risk score in the period at most"),
  weeksSinceRegistrationMin: Type.Optional(Int32({ minimum: 0, maximum: 10_000 })),
  countryId: Type.Optional(Int32({ minimum: 0, maximum: 10_000 })),
  instrumentId: Type.Optional(
    Int32({ minimum: -2_147_483_647, description: "Holders of this instrument; negative: users not holding it" }),
  ),
  instrumentPctMin: Type.Optional(Int32({ minimum: 0, maximum: 100 })),
  instrumentPctMax: Type.Optional(Int32({ minimum: 0, maximum: 100 })),
});
export type SearchQuery = Static<typeof SearchQuery>;

const Num = () => Type.Number({ format: "float" });
export const SearchItem = Type.Object({
  customerId: Type.Integer(),
  userName: Type.String(),
  fullName: Type.String(),
  hasAvatar: Type.Boolean(),
  isSocialConnected: Type.Boolean(),
  isTestAccount: Type.Boolean(),
  displayFullName: Type.Boolean(),
  bonusOnly: Type.Boolean(),
  blocked: Type.Boolean(),
  verified: Type.Boolean(),
  popularInvestor: Type.Boolean(),
  isPopularInvestor: Type.Boolean(),
  copyBlock: Type.Boolean(),
  isFund: Type.Boolean(),
  gain: Num(),
  dailyGain: Num(),
  thisWeekGain: Num(),
  riskScore: Type.Integer(),
  maxDailyRiskScore: Type.Integer(),
  maxMonthlyRiskScore: Type.Integer(),
  copiers: Type.Integer(),
  profitableMonthsPct: Num(),
  weeksSinceRegistration: Type.Integer(),
  countryId: Type.Integer(),
  instrumentPct: Type.Optional(Num()),
});
export type SearchItem = Static<typeof SearchItem>;

export const SearchResult = Type.Object({ totalItems: Type.Integer(), items: Type.Array(SearchItem) });

const Point = Type.Object({ timestamp: Type.String({ format: "date-time" }), gain: Type.Number() });
export const GainResult = Type.Object({
  monthly: Type.Array(Point, { description: "Each calendar month's compound gain, percent" }),
  yearly: Type.Array(Point, { description: "Each calendar year's compound gain, percent" }),
});

export const DailyGainQuery = Type.Object({
  minDate: Type.String({ format: "date" }),
  maxDate: Type.String({ format: "date" }),
  type: Enum(["Daily", "Period"] as const),
});
export const DailyGainResult = Type.Union([Type.Array(Point), Type.Object({ gain: Type.Number() })]);

const LivePosition = Type.Object({
  positionId: Type.Integer(),
  openTimestamp: Type.String({ format: "date-time" }),
  openRate: Type.Number(),
  instrumentId: Type.Integer(),
  isBuy: Type.Boolean(),
  leverage: Type.Integer(),
  takeProfitRate: Type.Number(),
  stopLossRate: Type.Number(),
  socialTradeId: Type.Integer(),
  parentPositionId: Type.Integer(),
  investmentPct: Type.Number({ description: "The position's margin, percent of the account's equity" }),
  netProfit: Type.Number({ description: "Unrealised profit, percent of the position's margin" }),
  trailingStopLoss: Type.Boolean(),
});
export const LivePortfolio = Type.Object({
  realizedCreditPct: Type.Number({ description: "Cash, percent of equity" }),
  unrealizedCreditPct: Type.Number({ description: "Cash plus unrealised profit, percent of equity" }),
  positions: Type.Array(LivePosition),
  socialTrades: Type.Array(Type.Object({})),
});

export const TradeInfoQuery = Type.Object({ period: PeriodParam });
export const TradeInfo = Type.Object({
  userName: Type.String(),
  fullName: Type.String(),
  weeksSinceRegistration: Type.Integer(),
  countryId: Type.Integer(),
  isPopularInvestor: Type.Boolean(),
  isFund: Type.Boolean(),
  hasAvatar: Type.Boolean(),
  gain: Num(),
  dailyGain: Num(),
  thisWeekGain: Num(),
  riskScore: Type.Integer(),
  maxDailyRiskScore: Type.Integer(),
  maxMonthlyRiskScore: Type.Integer(),
  copiers: Type.Integer(),
  trades: Type.Integer(),
  topTradedInstrumentId: Type.Optional(Type.Integer()),
  winRatio: Num(),
  profitableWeeksPct: Num(),
  profitableMonthsPct: Num(),
  avgPosSize: Num(),
  highLeveragePct: Num(),
  mediumLeveragePct: Num(),
  lowLeveragePct: Num(),
  activeWeeksPct: Num(),
  dailyDd: Num(),
  weeklyDd: Num(),
  peakToValley: Num(),
});

/** Users Stats: `period` or `minDate`+`maxDate`, and `count` (decision 0140). */
export const HistoryQuery = Type.Object({
  period: Type.Optional(PeriodParam),
  minDate: Type.Optional(Type.String({ format: "date" })),
  maxDate: Type.Optional(Type.String({ format: "date" })),
  count: Type.Optional(Int32({ minimum: 0, maximum: 10_000, description: "At most this many points; 0: all" })),
});
export type HistoryQuery = Static<typeof HistoryQuery>;

export const AssetsHistory = Type.Object({
  userName: Type.String(),
  results: Type.Array(
    Type.Object({
      date: Type.String({ format: "date" }),
      cashPct: Type.Number({ description: "Cash as a fraction of cash plus invested margin" }),
      cashOfTotalEquityPct: Type.Number({ description: "Cash as a fraction of equity" }),
      assets: Type.Array(
        Type.Object({
          instrumentId: Type.Integer(),
          symbol: Type.String(),
          investedPct: Type.Number({ description: "Margin in the instrument, fraction of cash plus invested margin" }),
          valuePct: Type.Number({ description: "Its value (margin plus unrealised profit), fraction of equity" }),
        }),
      ),
    }),
  ),
});

export const ExposureHistory = Type.Object({
  userName: Type.String(),
  results: Type.Array(
    Type.Object({
      date: Type.String({ format: "date" }),
      absExposurePct: Type.Number(),
      exposureItems: Type.Array(
        Type.Object({
          instrumentId: Type.Integer(),
          symbol: Type.String(),
          netExposurePct: Type.Number(),
          absExposurePct: Type.Number(),
        }),
      ),
    }),
  ),
});

export const GRANULARITIES = ["daily", "monthly", "yearly"] as const;
export const GainHistoryParams = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  granularity: Enum(GRANULARITIES),
});
export const GainHistoryQuery = Type.Object({
  minDate: Type.Optional(Type.String({ format: "date" })),
  maxDate: Type.Optional(Type.String({ format: "date" })),
  count: Type.Optional(Int32({ minimum: 1, maximum: 1000 })),
});
export type GainHistoryQuery = Static<typeof GainHistoryQuery>;
export const GainHistory = Type.Object({
  username: Type.String(),
  granularity: Enum(GRANULARITIES),
  totalGain: Nullable(Type.Number()),
  gains: Type.Array(Type.Object({ date: Type.String({ format: "date" }), gain: Type.Number() })),
});
export type AssetsHistory = Static<typeof AssetsHistory>;
export type ExposureHistory = Static<typeof ExposureHistory>;
export type GainHistory = Static<typeof GainHistory>;

export const Privacy = Type.Object(
  {
    isPrivate: Type.Boolean({ description: "Profile hidden: every read about this user by others is 404" }),
    portfolioOptOut: Type.Boolean({
      description: "Portfolio hidden: live portfolio and Users Stats reads by others are 403",
    }),
    copyBlocked: Type.Boolean({ description: "Nobody may start copying this user" }),
  },
  { description: "What others see of the caller and whether they may copy them (our extension)" },
);
export const PrivacyChange = Type.Partial(Privacy, { description: "The choices to change; the rest stay" });

export const PortfolioCopiers = Type.Object(
  {
    copiers: Type.Integer({ minimum: 0, description: "Users copying the portfolio now (active or paused copies)" }),
    aumTier: Type.Integer({
      minimum: 0,
      description:
        "Tier of the money copying it (cash + open margins): 0 none, 1 up to 10k USD, 2 from 10k, 3 from 100k, 4 from 1M, 5 from 10M",
    }),
    aumTierDesc: Type.Union([Type.String(), Type.Null()], {
      description: "None, Bronze, Silver, Gold, Platinum or Diamond",
    }),
  },
  { description: "Current copiers and AUM tier of a public portfolio" },
);
