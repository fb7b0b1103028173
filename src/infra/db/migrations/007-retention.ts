import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/** Indexes for the periodic purge of what has expired (src/modules/maintenance): no table scans. */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex("idempotency_keys_created").on("idempotency_keys").column("created_at").execute();
  await db.schema.createIndex("oauth_codes_expires").on("oauth_codes").column("expires_at").execute();
  await db.schema.createIndex("oauth_refresh_tokens_expires").on("oauth_refresh_tokens").column("expires_at").execute();
  await db.schema.createIndex("oauth_sessions_expires").on("oauth_sessions").column("expires_at").execute();
}
