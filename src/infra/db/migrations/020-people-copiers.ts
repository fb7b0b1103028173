import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * How many users copy each user now, as the people module last heard it from copy trading
 * (docs/decisions/0164): kept here, not only in `people_stats.copiers`, so a stats row written
 * later (the first daily close of a user who is copied already) starts with the right count.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("people_copiers")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("copiers", "integer", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}
