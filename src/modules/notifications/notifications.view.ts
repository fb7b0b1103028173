import type { Static } from "typebox";
import type { NotificationRow, ReadStatus } from "./notifications.repository.js";
import type {
  NotificationMessage as NotificationMessageSchema,
  NotificationResult as NotificationResultSchema,
} from "./notifications.schemas.js";

/** The wire shapes are the Static types of notifications.schemas.ts (written once, there). */
export type NotificationMessage = Static<typeof NotificationMessageSchema>;
export type NotificationResult = Static<typeof NotificationResultSchema>;

export const toMessage = (row: NotificationRow): NotificationMessage => ({
  messageId: row.id,
  correlationId: row.correlationId,
  actionLink: row.actionLink,
  imageTitle: row.imageTitle,
  imageUrl: row.imageUrl,
  notificationType: row.notificationType,
  version: row.version,
  aggregatable: row.aggregatable === 1,
  grouped: row.grouped === 1,
  aggregationId: row.aggregationId,
  message: row.message,
  readStatus: row.readStatus as ReadStatus,
  publishDate: row.publishDate,
  subCategory: row.subCategory,
  category: row.category,
  rtlLanguage: row.rtlLanguage === 1,
  section: row.section,
});
