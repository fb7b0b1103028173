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
} as const satisfies Record<string, NotificationKind>;

export type NotificationKindName = keyof typeof NOTIFICATION_KINDS;
