import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("watchlists")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    // The owner's gcid, immutable: public reads look watchlists up by it without a join.
    .addColumn("gcid", "integer", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("watchlist_type", "text", (c) => c.notNull())
    // 'Default' | 'RecentlyInvested' for the builtin ones, null otherwise: the unique index
    // below lets concurrent "ensure builtin" calls race safely (NULLs never collide).
    .addColumn("builtin", "text")
    .addColumn("is_user_selected_default", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("watchlist_rank", "integer", (c) => c.notNull())
    .addColumn("dynamic_url", "text")
    .addColumn("is_public", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("watchlists_user_builtin")
    .on("watchlists")
    .columns(["user_id", "builtin"])
    .unique()
    .execute();
  await db.schema.createIndex("watchlists_gcid").on("watchlists").columns(["gcid", "is_public"]).execute();

  await db.schema
    .createTable("watchlist_items")
    .addColumn("watchlist_id", "text", (c) => c.notNull().references("watchlists.id").onDelete("cascade"))
    .addColumn("item_type", "text", (c) => c.notNull())
    .addColumn("item_id", "integer", (c) => c.notNull())
    .addColumn("item_rank", "integer", (c) => c.notNull())
    .addColumn("item_added_reason", "text", (c) => c.notNull())
    .addColumn("item_added_date", "text", (c) => c.notNull())
    // One row per (watchlist, item): adding a duplicate is an upsert that changes nothing.
    .addPrimaryKeyConstraint("watchlist_items_pk", ["watchlist_id", "item_type", "item_id"])
    .execute();
  await db.schema
    .createIndex("watchlist_items_order")
    .on("watchlist_items")
    .columns(["watchlist_id", "item_rank", "item_added_date"])
    .execute();
}
