import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Trade posts (src/modules/social/trade-posts, docs/decisions/0175): a post of type Trade keeps its
 * trade (open or close, position, rate, gain, direction) as JSON beside its text; who chose to
 * publish their trades.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("posts").addColumn("trade", "text").execute();
  await db.schema
    .createTable("trade_post_choices")
    .addColumn("user_id", "text", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}
