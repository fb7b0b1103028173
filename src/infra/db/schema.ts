import type { ColumnType, Generated } from "kysely";

/** A nullable column added later (migration 018): optional on insert, so older writers need not name it. */
type Added<T> = ColumnType<T | null, T | null | undefined, T | null>;

/**
 * Table shapes as the application sees them (camelCase; CamelCasePlugin maps to snake_case).
 * Timestamps are ISO 8601 text and flags are 0/1 integers on both engines, so the same
 * repository code returns the same values on SQLite and PostgreSQL.
 */
export interface UsersTable {
  gcid: Generated<number>;
  id: string;
  username: string;
  usernameLower: string;
  firstName: string | null;
  middleName: string | null;
  lastName: string | null;
  playerLevel: number;
  gender: number;
  language: number;
  dateOfBirth: string;
  lei: string | null;
  countryCode: number;
  piLevel: number;
  isPrivate: number;
  passwordHash: string | null;
  createdAt: string;
}

export interface KeyPairsTable {
  id: string;
  userId: string;
  appName: string;
  apiKeyHash: string;
  userKeyHash: string;
  /** JSON array of bare scopes. */
  scopes: string;
  environment: string;
  createdAt: string;
  revokedAt: string | null;
  /** An agent portfolio's user token (migration 018): its name, portfolio, IPv4 allow-list (JSON) and expiry. */
  name: Added<string>;
  agentPortfolioId: Added<string>;
  ipsWhitelist: Added<string>;
  expiresAt: Added<string>;
  clientId: Added<string>;
}

export interface NotificationsTable {
  id: string;
  userId: string;
  correlationId: string;
  actionLink: string;
  imageTitle: string;
  imageUrl: string;
  notificationType: string;
  version: string;
  aggregatable: number;
  grouped: number;
  aggregationId: string;
  message: string;
  readStatus: string;
  publishDate: string;
  subCategory: string;
  category: string;
  rtlLanguage: number;
  section: string;
}

export interface InstrumentsTable {
  instrumentId: number;
  symbol: string;
  symbolLower: string;
  displayName: string;
  displayNameLower: string;
  assetType: string;
  assetTypeId: number;
  assetTypeSubCategoryId: number;
  exchangeId: number;
  hasExpirationDate: number;
  avatarSmall: string;
  avatarMedium: string;
  avatarLarge: string;
  /** JSON array of integers. */
  allowedLeverages: string;
  minAmountCents: number;
  priceSeed: number;
  precision: number;
  updated: string;
}

/** OAuth 2.0 (migration 002). JSON columns hold arrays of bare scopes or redirect URIs. */
export interface OauthClientsTable {
  id: string;
  name: string;
  secretHash: string | null;
  redirectUris: string;
  environment: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface OauthSigningKeysTable {
  kid: string;
  alg: string;
  privateJwk: string;
  publicJwk: string;
  createdAt: string;
  retiredAt: string | null;
}

/** Name → value settings of the authorization server (migration 008): `issuer`. */
export interface OauthSettingsTable {
  name: string;
  value: string;
  updatedAt: string;
}

/** The audit trail of security events (migration 009, src/modules/audit). */
export interface AuditEventsTable {
  id: Generated<number>;
  at: string;
  action: string;
  outcome: string;
  actor: string | null;
  userId: string | null;
  address: string | null;
  /** A JSON object. */
  details: string;
}

/** Each user's club tier as last seen (migration 011, src/modules/clubs). */
export interface ClubMembershipsTable {
  userId: string;
  tier: string;
  belowSince: string | null;
  updatedAt: string;
}

/** Price alerts (migration 012, src/modules/price-alerts). */
export interface PriceAlertsTable {
  id: string;
  userId: string;
  instrumentId: number;
  symbol: string;
  targetPrice: number;
  direction: "above" | "below";
  currentPrice: number;
  createdAt: string;
  updatedAt: string;
  triggeredAt: string | null;
  triggeredPrice: number | null;
}

/** Failed sign-ins per pool (migration 010, docs/decisions/0104); times are ISO text. */
export interface SignInCountersTable {
  /** `account:<sha-256 of the lower-cased username>`, `device:<nonce>` or `address:<sha-256 of user id and address>`. */
  key: string;
  /** Failures counted in the current streak (an attempt is counted when it starts). */
  failures: number;
  /** No attempt of this pool is checked before this time. */
  lockedUntil: string;
  /** The row is forgotten (purged, or treated as absent) from this time. */
  expiresAt: string;
  /** Attempts refused during the current delay. */
  refusals: Generated<number>;
}

/** Client addresses an account signed in from (migration 010): `key` hashes the user id and the address. */
export interface SignInKnownAddressesTable {
  key: string;
  expiresAt: string;
}

export interface OauthSessionsTable {
  idHash: string;
  userId: string;
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
}

export interface OauthGrantsTable {
  id: string;
  clientId: string | null;
  userId: string;
  scopes: string;
  environment: string;
  createdAt: string;
  revokedAt: string | null;
  revokedReason: string | null;
}

export interface OauthCodesTable {
  codeHash: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  redirectUriGiven: number;
  scopes: string;
  codeChallenge: string | null;
  expiresAt: string;
  usedAt: string | null;
  grantId: string | null;
  createdAt: string;
}

export interface OauthRefreshTokensTable {
  tokenHash: string;
  grantId: string;
  scopes: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** Social (migration 006): flags are 0/1, attachments are JSON text in the request form. */
export interface PostsTable {
  seq: Generated<number>;
  id: string;
  ownerId: string;
  type: string;
  text: string;
  languageCode: string;
  attachments: string;
  createdAt: string;
  updatedAt: string;
  editStatus: string;
  isDeleted: number;
  isSpam: number;
  sharedPostId: string | null;
  sharedOriginPostId: string | null;
  /** A Trade post's trade as JSON (migration 024, decision 0175); null for every other type. */
  trade: Added<string>;
}

export interface TradePostChoicesTable {
  userId: string;
  enabled: number;
  updatedAt: string;
}

export interface PostTagsTable {
  postId: string;
  postSeq: number;
  instrumentId: number;
  position: number;
  createdAt: string;
}

export interface MentionsTable {
  entityId: string;
  userId: string;
  isDirect: number;
  position: number;
}

export interface PollsTable {
  id: Generated<number>;
  postId: string;
  title: string;
}

export interface PollOptionsTable {
  id: Generated<number>;
  pollId: number;
  idx: number;
  text: string;
}

export interface PollVotesTable {
  pollId: number;
  userId: string;
  optionId: number;
  createdAt: string;
}

export interface CommentsTable {
  seq: Generated<number>;
  id: string;
  postId: string;
  parentId: string | null;
  ownerId: string;
  text: string;
  languageCode: string;
  attachments: string;
  createdAt: string;
  updatedAt: string;
  editStatus: string;
  isDeleted: number;
  isSpam: number;
}

export interface LikesTable {
  seq: Generated<number>;
  id: string;
  entityId: string;
  entityType: string;
  userId: string;
  createdAt: string;
}

export interface SavesTable {
  seq: Generated<number>;
  postId: string;
  userId: string;
  createdAt: string;
}

export interface PinsTable {
  seq: Generated<number>;
  postId: string;
  userId: string;
  createdAt: string;
}

export interface PostFollowsTable {
  postId: string;
  userId: string;
  createdAt: string;
}

export interface UserFollowsTable {
  followerId: string;
  followeeId: string;
  createdAt: string;
}

export interface UserBlocksTable {
  blockerId: string;
  blockedId: string;
  createdAt: string;
}

export interface WatchlistsTable {
  id: string;
  userId: string;
  gcid: number;
  name: string;
  watchlistType: string;
  /** 'Default' | 'RecentlyInvested' for the builtin watchlists, null for the user's own. */
  builtin: string | null;
  isUserSelectedDefault: number;
  watchlistRank: number;
  dynamicUrl: string | null;
  isPublic: number;
  createdAt: string;
  updatedAt: string;
}

export interface WatchlistItemsTable {
  watchlistId: string;
  itemType: string;
  itemId: number;
  itemRank: number;
  itemAddedReason: string;
  itemAddedDate: string;
}

/** Money columns are bigint: PostgreSQL returns them as strings, so repositories read them with Number(). */
/** One overnight (or weekend) fee charged to a position at one rollover (migration 015). */
export interface DemoOvernightFeesTable {
  positionId: number;
  rolloverDate: string;
  userId: string;
  instrumentId: number;
  feeCents: number | string;
  isWeekend: number;
  chargedAt: string;
}

/** SDRT a position paid at its open (migration 015). */
export interface DemoPositionTaxesTable {
  positionId: number;
  userId: string;
  taxCents: number | string;
  chargedAt: string;
}

export interface DemoAccountsTable {
  userId: string;
  cid: number;
  cashCents: number | string;
  startingCents: number | string;
  realizedPnlCents: number | string;
  createdAt: string;
  updatedAt: string;
}

export interface DemoOrdersTable {
  orderId: Generated<number>;
  userId: string;
  cid: number;
  orderType: number;
  statusId: number;
  instrumentId: number;
  isBuy: number;
  leverage: number;
  amountCents: number | string;
  units: number;
  requestedUnits: number | null;
  rate: number;
  stopLossRate: number;
  takeProfitRate: number;
  isTslEnabled: number;
  isNoStopLoss: number;
  isNoTakeProfit: number;
  positionId: number | null;
  unitsToDeduct: number | null;
  token: string;
  openDateTime: string;
  lastUpdate: string;
  /** Entry (market-if-touched) orders only: the price that sends them to market (migration 014). */
  triggerRate: number | null;
  /** The x-request-id the order was placed with. */
  referenceId: string | null;
  /** byAmount, byUnits or byContracts (v2 lookup's requestType). */
  requestType: string | null;
  requestedContracts: number | null;
  /** When a pending entry order lapses. */
  expiresAt: string | null;
  /** Why an entry order was rejected when it fired. */
  errorMessage: string | null;
}

export interface DemoPositionsTable {
  positionId: Generated<number>;
  userId: string;
  cid: number;
  orderId: number;
  instrumentId: number;
  isBuy: number;
  leverage: number;
  amountCents: number | string;
  initialAmountCents: number | string;
  units: number;
  initialUnits: number;
  openRate: number;
  openDateTime: string;
  stopLossRate: number;
  takeProfitRate: number;
  isTslEnabled: number;
  tslGap: number;
  isNoStopLoss: number;
  isNoTakeProfit: number;
  status: string;
  version: number;
  lastUpdate: string;
  /** A copy's position (migration 018): the mirror it belongs to and the copied position. */
  mirrorId: Added<number>;
  parentPositionId: Added<number>;
}

export interface DemoTradesTable {
  tradeId: Generated<number>;
  userId: string;
  positionId: number;
  orderId: number;
  openOrderId: number;
  instrumentId: number;
  isBuy: number;
  leverage: number;
  openRate: number;
  closeRate: number;
  openDateTime: string;
  closeDateTime: string;
  units: number;
  investmentCents: number | string;
  initialInvestmentCents: number | string;
  netProfitCents: number | string;
  stopLossRate: number;
  takeProfitRate: number;
  isTslEnabled: number;
  closeReason: string;
}

export interface IdempotencyKeysTable {
  userId: string;
  requestId: string;
  operation: string;
  bodyHash: string;
  response: string;
  createdAt: string;
}

/** Uploaded media (migration 013, docs/decisions/0122). */
/** Saved worlds of the sandbox (migration 019, docs/decisions/0152): `data` is the rows of every world table, as JSON. */
export interface SandboxSnapshotsTable {
  name: string;
  createdAt: string;
  tables: number;
  rows: number;
  data: string;
}

export interface AttachmentsTable {
  id: string;
  ownerId: string;
  /** The object's key in the MediaStore: the upload's id. */
  storageKey: string;
  mime: string;
  size: number;
  width: number;
  height: number;
  /** SHA-256 of the stored bytes (hex): the strong ETag. */
  sha256: string;
  createdAt: string;
  /** When a post or comment first referenced it; null while unreferenced. */
  referencedAt: string | null;
}

/** One demo account's close of one UTC day (src/modules/people, decision 0138). */
export interface AccountSnapshotsTable {
  userId: string;
  day: string;
  equityCents: number | string;
  cashCents: number | string;
  investedCents: number | string;
  depositsCents: number | string;
  dailyReturn: number;
  unitValue: number;
  riskScore: number;
  /** JSON array of SnapshotHolding (people/history/snapshot.ts). */
  holdings: string;
  takenAt: string;
}

export interface PeopleStatsTable {
  userId: string;
  period: string;
  gain: number;
  dailyGain: number;
  weekGain: number;
  riskScore: number;
  maxDailyRisk: number;
  maxMonthlyRisk: number;
  profitableMonthsPct: number;
  copiers: Generated<number>;
  updatedAt: string;
  /** The user's columns search filters and sorts on (migration 021, decision 0165). */
  gcid: number;
  usernameLower: string;
  countryCode: number;
  piLevel: number;
  registeredAt: string;
  /** 1 for a public profile (users.is_private = 0). */
  listed: number;
  /** 1 when the user opted out of portfolio exposure (people_settings). */
  optOut: number;
}

/** Users copying each user now, as copy trading last told the people module (0164). */
export interface PeopleCopiersTable {
  userId: string;
  copiers: number;
  updatedAt: string;
}

/** Users whose privacy or copiers changed during the snapshot pass (migration 026, decision 0180). */
export interface PeopleStatsTouchedTable {
  userId: string;
}

/** One row: a token changed by every write to search's rows (migration 027, decision 0181). */
export interface PeopleStatsVersionTable {
  id: number;
  token: number | string;
}

export interface PeopleHoldingsTable {
  userId: string;
  instrumentId: number;
  pct: number;
}

export interface PeopleSettingsTable {
  userId: string;
  portfolioOptOut: number;
  copyBlocked: number;
  updatedAt: string;
}

export interface Database {
  accountSnapshots: AccountSnapshotsTable;
  peopleStats: PeopleStatsTable;
  peopleCopiers: PeopleCopiersTable;
  peopleStatsTouched: PeopleStatsTouchedTable;
  peopleStatsVersion: PeopleStatsVersionTable;
  peopleHoldings: PeopleHoldingsTable;
  peopleSettings: PeopleSettingsTable;
  attachments: AttachmentsTable;
  sandboxSnapshots: SandboxSnapshotsTable;
  users: UsersTable;
  keyPairs: KeyPairsTable;
  agentPortfolios: AgentPortfoliosTable;
  copyMirrors: CopyMirrorsTable;
  copyMirrorOpens: CopyMirrorOpensTable;
  notifications: NotificationsTable;
  oauthClients: OauthClientsTable;
  oauthSigningKeys: OauthSigningKeysTable;
  oauthSessions: OauthSessionsTable;
  oauthSettings: OauthSettingsTable;
  auditEvents: AuditEventsTable;
  clubMemberships: ClubMembershipsTable;
  priceAlerts: PriceAlertsTable;
  signInCounters: SignInCountersTable;
  signInKnownAddresses: SignInKnownAddressesTable;
  oauthGrants: OauthGrantsTable;
  oauthCodes: OauthCodesTable;
  oauthRefreshTokens: OauthRefreshTokensTable;
  instruments: InstrumentsTable;
  demoAccounts: DemoAccountsTable;
  demoOrders: DemoOrdersTable;
  demoPositions: DemoPositionsTable;
  demoTrades: DemoTradesTable;
  demoOvernightFees: DemoOvernightFeesTable;
  demoPositionTaxes: DemoPositionTaxesTable;
  idempotencyKeys: IdempotencyKeysTable;
  posts: PostsTable;
  tradePostChoices: TradePostChoicesTable;
  postTags: PostTagsTable;
  mentions: MentionsTable;
  polls: PollsTable;
  pollOptions: PollOptionsTable;
  pollVotes: PollVotesTable;
  comments: CommentsTable;
  likes: LikesTable;
  saves: SavesTable;
  pins: PinsTable;
  postFollows: PostFollowsTable;
  userFollows: UserFollowsTable;
  userBlocks: UserBlocksTable;
  watchlists: WatchlistsTable;
  watchlistItems: WatchlistItemsTable;
}

/** Copy trading (migration 018, src/modules/copy-trading). */
export interface AgentPortfoliosTable {
  id: string;
  ownerUserId: string;
  agentUserId: string;
  name: string;
  nameLower: string;
  description: string | null;
  virtualBalanceCents: number | string;
  mirrorId: number;
  createdAt: string;
}

export interface CopyMirrorsTable {
  mirrorId: Generated<number>;
  copierUserId: string;
  parentUserId: string;
  agentPortfolioId: string | null;
  /** active | paused | stopped */
  status: string;
  initialInvestmentCents: number | string;
  depositCents: number | string;
  withdrawalCents: number | string;
  availableCashCents: number | string;
  closedPnlCents: number | string;
  /** 0 = no copy stop-loss. */
  stopLossCents: number | string;
  startedAt: string;
  stoppedAt: string | null;
  updatedAt: string;
}

export interface CopyMirrorOpensTable {
  mirrorId: number;
  parentPositionId: number;
  positionId: number | null;
  skipReason: string | null;
  handledAt: string;
}
