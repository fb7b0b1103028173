import type { NotificationRow, ReadStatus } from "./notifications.repository.js";

export interface NotificationMessage {
  messageId: string;
  correlationId: string;
  actionLink: string;
  imageTitle: string;
  imageUrl: string;
  notificationType: string;
  version: string;
  aggregatable: boolean;
  grouped: boolean;
  aggregationId: string;
  message: string;
  readStatus: ReadStatus;
  publishDate: string;
  subCategory: string;
  category: string;
  rtlLanguage: boolean;
  section: string;
}

export interface NotificationResult {
  messages: NotificationMessage[];
  meta: { notSeen: number };
}

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
