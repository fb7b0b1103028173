import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Settings of the authorization server that the store remembers for the CLI: `issuer`, the
 * issuer a server recorded when it started (docs/decisions/0087), so that `tokens create` and
 * `apps create` name the issuer the server checks without the operator giving it twice.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("oauth_settings")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}
