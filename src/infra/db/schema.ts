import type { Generated } from "kysely";

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

export interface Database {
  users: UsersTable;
  keyPairs: KeyPairsTable;
  notifications: NotificationsTable;
}
