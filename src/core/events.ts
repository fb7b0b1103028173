/**
 * Domain events: recorded by use cases inside a transaction, published after commit.
 * The in-memory and Redis buses implement the same EventBus interface.
 */
export interface UserRegistered {
  readonly type: "UserRegistered";
  readonly userId: string;
  readonly username: string;
  readonly occurredAt: string;
}

export interface KeyPairRevoked {
  readonly type: "KeyPairRevoked";
  readonly keyPairId: string;
  readonly userId: string;
  readonly occurredAt: string;
}

/**
 * `signing-keys rotate --drop-previous`: every key but `keptKid` is gone; each instance's key set is
 * re-read at once, so the dropped keys' tokens stop verifying everywhere.
 */
export interface SigningKeysDropped {
  readonly type: "SigningKeysDropped";
  readonly keptKid: string;
  readonly occurredAt: string;
}

/** An OAuth grant (one consent's refresh and access tokens) was revoked; bearer caches drop it. */
export interface OAuthGrantRevoked {
  readonly type: "OAuthGrantRevoked";
  readonly grantId: string;
  readonly userId: string;
  readonly reason: string;
  readonly occurredAt: string;
}

/** Social events (src/modules/social); `actor*` is who acted, the other user is who is told. */
export interface UserMentioned {
  readonly type: "UserMentioned";
  readonly userId: string;
  readonly actorId: string;
  readonly actorUsername: string;
  readonly postId: string;
  /** Set when the mention is in a comment or reply rather than in the post. */
  readonly commentId: string | null;
  readonly occurredAt: string;
}

export interface PostCommented {
  readonly type: "PostCommented";
  readonly postOwnerId: string;
  readonly actorId: string;
  readonly actorUsername: string;
  readonly postId: string;
  readonly commentId: string;
  readonly isReply: boolean;
  readonly occurredAt: string;
}

export interface PostLiked {
  readonly type: "PostLiked";
  readonly postOwnerId: string;
  readonly actorId: string;
  readonly actorUsername: string;
  readonly postId: string;
  readonly occurredAt: string;
}

export interface UserFollowed {
  readonly type: "UserFollowed";
  readonly userId: string;
  readonly actorId: string;
  readonly actorUsername: string;
  readonly actorGcid: number;
  readonly occurredAt: string;
}

export interface PostShared {
  readonly type: "PostShared";
  readonly postOwnerId: string;
  readonly actorId: string;
  readonly actorUsername: string;
  readonly postId: string;
  readonly sharePostId: string;
  readonly occurredAt: string;
}

/**
 * Any social write, once per write: what it changed, for the caches of social reads
 * (src/modules/social/shared/read-cache.ts) in every instance. Not a notification.
 */
export interface SocialChanged {
  readonly type: "SocialChanged";
  /** Posts whose document may read differently to anyone (content, counts, previews, flags). */
  readonly postIds: readonly string[];
  /** Users whose own view changed (follows, blocks, likes, saves, pins, votes): their reads and kept marks are redone. */
  readonly userIds: readonly string[];
  /** Feeds may now list other posts (a post was created, shared, deleted). */
  readonly listings: boolean;
  /**
   * With `listings`: the change was one new post of `ownerId`, tagged `instrumentIds`, and no other
   * listing changed, so only the feeds that may list it are redone (the news feed, the owner's,
   * those instruments', and feeds personal to a caller). Absent: any feed may list other posts.
   */
  readonly listed?: { readonly ownerId: string; readonly instrumentIds: readonly number[] };
  /**
   * The change may show in any answer: a profile turned private or public (it shows wherever its
   * user does, and decides who sees their posts). Every kept answer and part is redone.
   */
  readonly everywhere?: boolean;
  /**
   * The change was one new like of a post (named in `postIds`), by a user (named in `userIds`):
   * kept parts that show the post's likes, or the user's marks, add it in place instead of being
   * rebuilt (docs/decisions/0198, 0210). Parts that cannot are dropped as for any change.
   */
  readonly like?: PostLikeAdded;
  /** The change was one new top-level comment of a post (named in `postIds`), patched in likewise. */
  readonly comment?: PostCommentAdded;
  readonly occurredAt: string;
}

/** A like as a post's likes preview shows it (docs/decisions/0198). */
export interface PostLikeAdded {
  readonly postId: string;
  /**
   * The post's `seq` (the like's `parent.obsoleteId`; docs/decisions/0210). Missing from an event
   * of an instance older than 0210 (the bus carries it across instances): feed documents are then
   * built again rather than patched.
   */
  readonly postSeq?: number;
  readonly id: string;
  /** The like's `seq`: greater than that of every like committed before it. */
  readonly seq: number;
  readonly userId: string;
  readonly createdAt: string;
  /** The liker's public profile as previews show it (identity's `UserProfile`). */
  readonly owner: unknown;
}

/** A new top-level comment, without mentions, as a post's comment preview shows it (0198). */
export interface PostCommentAdded {
  readonly postId: string;
  /** The post's `seq` (the comment's `parent.obsoleteId`). */
  readonly postSeq: number;
  /** The comment as stored (a `comments` row): its `seq` is greater than every earlier comment's. */
  readonly row: {
    readonly seq: number;
    readonly id: string;
    readonly postId: string;
    readonly parentId: null;
    readonly ownerId: string;
    readonly text: string;
    readonly languageCode: string;
    readonly attachments: string;
    readonly createdAt: string;
    readonly updatedAt: string;
    readonly editStatus: string;
    readonly isDeleted: number;
    readonly isSpam: number;
  };
  /** The commenter's public profile as previews show it (identity's `UserProfile`). */
  readonly owner: unknown;
}

export type SocialEvent = UserMentioned | PostCommented | PostLiked | UserFollowed | PostShared | SocialChanged;

/** A demo position opened: the trigger index starts watching its stop-loss / take-profit. */
export interface PositionOpened {
  readonly type: "PositionOpened";
  readonly userId: string;
  readonly positionId: number;
  readonly instrumentId: number;
  readonly isBuy: boolean;
  readonly openRate: number;
  /** 0 = none. */
  readonly stopLossRate: number;
  /** 0 = none. */
  readonly takeProfitRate: number;
  readonly isTslEnabled: boolean;
  /** A trailing stop's distance from the best price (0 without one). */
  readonly tslGap?: number;
  readonly occurredAt: string;
}

export type CloseReason = "Manual" | "StopLoss" | "TakeProfit" | "TrailingStopLoss";

/** A demo position closed fully or in part, by its owner or by a trigger. */
export interface PositionClosed {
  readonly type: "PositionClosed";
  readonly userId: string;
  readonly positionId: number;
  readonly instrumentId: number;
  readonly symbol: string;
  readonly isBuy: boolean;
  readonly reason: CloseReason;
  /** False when units remain open (a partial close). */
  readonly fullyClosed: boolean;
  readonly closeRate: number;
  readonly unitsClosed: number;
  readonly netProfitCents: number;
  readonly occurredAt: string;
}

/**
 * Copies closed with the position they copy, one event for a batch of them (copy trading,
 * decision 0162): each close as PositionClosed tells it. Recorded in place of one PositionClosed
 * per copy, so its subscribers (the copiers' notifications) write a batch at once.
 */
export interface CopiesClosed {
  readonly type: "CopiesClosed";
  readonly parentPositionId: number;
  readonly closes: readonly PositionClosed[];
  readonly occurredAt: string;
}

/**
 * How many users copy `userId` now (active or paused copies, each copier once), counted by copy
 * trading after a copy of them started or stopped (decision 0164): the people module keeps its
 * stats' `copiers` with it.
 */
export interface CopiersChanged {
  readonly type: "CopiersChanged";
  readonly userId: string;
  readonly copiers: number;
  readonly occurredAt: string;
}

/** A price alert was created or its target changed: every instance's alert index watches it. */
export interface PriceAlertSet {
  readonly type: "PriceAlertSet";
  readonly alertId: string;
  readonly userId: string;
  readonly instrumentId: number;
  readonly targetPrice: number;
  readonly direction: "above" | "below";
  readonly occurredAt: string;
}

/** A price alert was deleted by its owner: every instance stops watching it. */
export interface PriceAlertDeleted {
  readonly type: "PriceAlertDeleted";
  readonly alertId: string;
  readonly userId: string;
  readonly occurredAt: string;
}

/** The bid reached a price alert's target; it fired once and left the active list. */
export interface PriceAlertTriggered {
  readonly type: "PriceAlertTriggered";
  readonly alertId: string;
  readonly userId: string;
  readonly instrumentId: number;
  readonly symbol: string;
  readonly targetPrice: number;
  readonly direction: "above" | "below";
  /** The bid that reached the target. */
  readonly price: number;
  readonly occurredAt: string;
}

export type PriceAlertEvent = PriceAlertSet | PriceAlertDeleted | PriceAlertTriggered;

/**
 * An order executed (demo market orders execute within their request): the order record as
 * `GET /trading/info/demo/orders/{orderId}` shows it. The real-time channel's `private` topic
 * tells its owner (docs/realtime.md); recorded beside PositionOpened / PositionClosed.
 */
export interface OrderExecuted {
  readonly type: "OrderExecuted";
  readonly userId: string;
  readonly order: ExecutedOrder;
  readonly occurredAt: string;
}

export interface ExecutedOrder {
  readonly orderId: number;
  /** 17 = market order to open, 19 = market order to close (decision 0046). */
  readonly orderType: number;
  readonly statusId: number;
  readonly cid: number;
  readonly instrumentId: number;
  readonly positionId: number;
  readonly isBuy: boolean;
  readonly leverage: number;
  readonly amountCents: number;
  readonly units: number;
  /** The units asked for by a by-units open, else null. */
  readonly requestedUnits: number | null;
  /** The execution rate (the close rate of a close). */
  readonly rate: number;
  readonly stopLossRate: number;
  readonly takeProfitRate: number;
  readonly isTslEnabled: boolean;
  /** The order's token (`token` / `referenceID` of the order info). */
  readonly token: string;
  readonly openDateTime: string;
  /** Set for a close order. */
  readonly close?: {
    readonly reason: CloseReason;
    readonly netProfitCents: number;
    readonly fullyClosed: boolean;
  };
}

/** An entry (market-if-touched) order rests in the book: every instance's entry index watches it. */
export interface EntryOrderPlaced {
  readonly type: "EntryOrderPlaced";
  readonly userId: string;
  readonly orderId: number;
  readonly instrumentId: number;
  readonly isBuy: boolean;
  readonly triggerRate: number;
  readonly occurredAt: string;
}

/**
 * An entry order left the book: it executed (its position opened; OrderExecuted tells the order
 * the open sent), was cancelled, expired or was rejected when it fired. Every instance stops
 * watching it; its owner is notified unless they cancelled it themselves.
 */
export interface EntryOrderEnded {
  readonly type: "EntryOrderEnded";
  readonly userId: string;
  readonly orderId: number;
  readonly instrumentId: number;
  readonly symbol: string;
  readonly isBuy: boolean;
  readonly triggerRate: number;
  readonly outcome: "executed" | "cancelled" | "expired" | "rejected";
  /** The position it opened (executed only). */
  readonly positionId: number | null;
  /** The execution rate (executed only). */
  readonly rate: number | null;
  /** Why it was rejected (rejected only). */
  readonly reason: string | null;
  readonly occurredAt: string;
}

/** An open position's stop-loss, take-profit or trailing flag was changed: every trigger index follows. */
export interface PositionExitsChanged {
  readonly type: "PositionExitsChanged";
  readonly userId: string;
  /** The account the position belongs to (upstream's CID). */
  readonly cid: number;
  readonly positionId: number;
  readonly instrumentId: number;
  readonly isBuy: boolean;
  /** 0 = none. */
  readonly stopLossRate: number;
  /** 0 = none. */
  readonly takeProfitRate: number;
  readonly isTslEnabled: boolean;
  readonly tslGap: number;
  readonly occurredAt: string;
}

export type TradingEvent =
  | PositionOpened
  | PositionClosed
  | CopiesClosed
  | CopiersChanged
  | OrderExecuted
  | EntryOrderPlaced
  | EntryOrderEnded
  | PositionExitsChanged;

/** One instrument's price in a `PricesTicked` broadcast (the market engine's quote). */
export interface TickedQuote {
  readonly instrumentId: number;
  readonly bid: number;
  readonly ask: number;
  readonly mid: number;
  readonly date: string;
  readonly priceRateId: number;
}

/**
 * The leading instance's market engine ticked (only with several instances, REDIS_URL): every
 * other instance applies the same quotes at the same step (docs/decisions/0050-one-price-stream.md).
 */
export interface PricesTicked {
  readonly type: "PricesTicked";
  /** The engine that ticked: it skips its own broadcast. */
  readonly engineId: string;
  readonly step: number;
  readonly quotes: readonly TickedQuote[];
  readonly occurredAt: string;
}

/**
 * A notification was stored for a user (src/modules/notifications/notify.ts): `item` is the entry
 * `GET /api/v1/notifications/messages` lists. The real-time channel's `notifications` topic tells
 * its owner at once, on whichever instance holds the socket.
 */
export interface NotificationCreated {
  readonly type: "NotificationCreated";
  readonly userId: string;
  readonly item: NotificationItem;
  readonly occurredAt: string;
}

/**
 * Notifications changed status (New to Seen by a read, to Read by PATCH), or, with `userIds`
 * "all", the whole store was replaced (the sandbox's reset): for the per-user poll answers each
 * instance keeps (src/modules/notifications/poll-cache.ts). Not told to clients.
 */
export interface NotificationsChanged {
  readonly type: "NotificationsChanged";
  readonly userIds: readonly string[] | "all";
  readonly occurredAt: string;
}

/** One notification as the REST list returns it (notifications.schemas.ts NotificationMessage). */
export interface NotificationItem {
  readonly messageId: string;
  readonly correlationId: string;
  readonly actionLink: string;
  readonly imageTitle: string;
  readonly imageUrl: string;
  readonly notificationType: string;
  readonly version: string;
  readonly aggregatable: boolean;
  readonly grouped: boolean;
  readonly aggregationId: string;
  readonly message: string;
  readonly readStatus: "New" | "Seen" | "Read";
  readonly publishDate: string;
  readonly subCategory: string;
  readonly category: string;
  readonly rtlLanguage: boolean;
  readonly section: string;
}

export type DomainEvent =
  | UserRegistered
  | KeyPairRevoked
  | OAuthGrantRevoked
  | SigningKeysDropped
  | SocialEvent
  | TradingEvent
  | PriceAlertEvent
  | PricesTicked
  | NotificationCreated
  | NotificationsChanged;
export type DomainEventType = DomainEvent["type"];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;

export type EventHandler<T extends DomainEventType> = (event: EventOf<T>) => Promise<void> | void;

/**
 * Two kinds of subscriber:
 * - `subscribe`: runs once, in the instance that published — for durable side effects
 *   (a notification row must be written once, however many instances run);
 * - `subscribeEverywhere`: runs in every instance — for what each process holds in memory
 *   (caches, realtime connections). With one process both run once.
 */
export interface EventBus {
  publish(events: readonly DomainEvent[]): Promise<void>;
  subscribe<T extends DomainEventType>(type: T, handler: EventHandler<T>): void;
  subscribeEverywhere<T extends DomainEventType>(type: T, handler: EventHandler<T>): void;
  close(): Promise<void>;
}
