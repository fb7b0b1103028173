/**
 * Every kind of notification the service emits, with its stable wire values.
 * The full table is documented in docs/notifications.md; add a kind here and there together.
 */
export interface NotificationKind {
  notificationType: string;
  category: string;
  subCategory: string;
  section: string;
  aggregatable: boolean;
}

export const NOTIFICATION_FORMAT_VERSION = "1.0";

export const NOTIFICATION_KINDS = {
  welcome: {
    notificationType: "Welcome",
    category: "Account",
    subCategory: "Onboarding",
    section: "General",
    aggregatable: false,
  },
  announcement: {
    notificationType: "Announcement",
    category: "System",
    subCategory: "Announcement",
    section: "General",
    aggregatable: false,
  },
  positionClosed: {
    notificationType: "PositionClosed",
    category: "Trading",
    subCategory: "DemoPosition",
    section: "Trading",
    aggregatable: false,
  },
  entryOrder: {
    notificationType: "EntryOrder",
    category: "Trading",
    subCategory: "DemoOrder",
    section: "Trading",
    aggregatable: false,
  },
  priceAlert: {
    notificationType: "PriceAlert",
    category: "Trading",
    subCategory: "PriceAlert",
    section: "Trading",
    aggregatable: false,
  },
  // Copy trading (src/modules/copy-trading): someone started copying the user.
  copyStarted: {
    notificationType: "CopyStarted",
    category: "Social",
    subCategory: "Copy",
    section: "Trading",
    aggregatable: false,
  },
  // Social (src/modules/social): see docs/notifications.md
  mention: {
    notificationType: "Mention",
    category: "Social",
    subCategory: "Mention",
    section: "Feed",
    aggregatable: false,
  },
  postComment: {
    notificationType: "PostComment",
    category: "Social",
    subCategory: "Comment",
    section: "Feed",
    aggregatable: true,
  },
  postReply: {
    notificationType: "PostReply",
    category: "Social",
    subCategory: "Comment",
    section: "Feed",
    aggregatable: true,
  },
  postLike: {
    notificationType: "PostLike",
    category: "Social",
    subCategory: "Like",
    section: "Feed",
    aggregatable: true,
  },
  newFollower: {
    notificationType: "NewFollower",
    category: "Social",
    subCategory: "Follower",
    section: "Profile",
    aggregatable: true,
  },
  postShare: {
    notificationType: "PostShare",
    category: "Social",
    subCategory: "Share",
    section: "Feed",
    aggregatable: true,
  },
} as const satisfies Record<string, NotificationKind>;

export type NotificationKindName = keyof typeof NOTIFICATION_KINDS;
