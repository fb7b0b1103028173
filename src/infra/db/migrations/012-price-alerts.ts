import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Price alerts (src/modules/price-alerts, docs/decisions/0121). `direction` is where the target
 * stood from the bid when it was set: `above` fires when the bid rises to it, `below` when it
 * falls to it. A fired alert keeps its row (`triggered_at`, `triggered_price`) and leaves the
 * active list.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("price_alerts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("instrument_id", "integer", (c) => c.notNull())
    .addColumn("symbol", "text", (c) => c.notNull())
    .addColumn("target_price", "double precision", (c) => c.notNull())
    .addColumn("direction", "text", (c) => c.notNull())
    .addColumn("current_price", "double precision", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("triggered_at", "text")
    .addColumn("triggered_price", "double precision")
    .execute();
  await db.schema
    .createIndex("price_alerts_user_active")
    .on("price_alerts")
    .columns(["user_id", "triggered_at"])
    .execute();
  await db.schema.createIndex("price_alerts_active").on("price_alerts").column("triggered_at").execute();
}
