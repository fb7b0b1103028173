import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Each user's club tier as last seen (src/modules/clubs, docs/decisions/0120): `below_since` is
 * when their realized equity was first seen under the tier, the start of the grace before a
 * downgrade; null while they are within it.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("club_memberships")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("tier", "text", (c) => c.notNull())
    .addColumn("below_since", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}
