import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Failed sign-ins per pool (src/modules/oauth/sign-in-throttle.ts, docs/decisions/0104): one row per
 * account's unknown browsers (`account:<hash of the username>`) or per device cookie
 * (`device:<nonce>`) or per address an account signed in from (`address:<hash>`); and those
 * addresses (`sign_in_known_addresses`, a hash of the user id and the address). Times are ISO text;
 * a row is purged once `expires_at` has passed.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("sign_in_counters")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("locked_until", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("refusals", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("sign_in_counters_expires_at").on("sign_in_counters").column("expires_at").execute();
  await db.schema
    .createTable("sign_in_known_addresses")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("sign_in_known_addresses_expires_at")
    .on("sign_in_known_addresses")
    .column("expires_at")
    .execute();
}
