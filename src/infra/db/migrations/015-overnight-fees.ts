import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Overnight fees (src/modules/trading/costs, docs/decisions/0132): one row per position and daily
 * rollover it was charged at. The primary key makes the charge happen once per position and
 * rollover, whichever instance runs the pass and however often (a restart runs it again). And
 * the SDRT a position paid when it opened.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("demo_overnight_fees")
    .addColumn("position_id", "integer", (c) => c.notNull())
    .addColumn("rollover_date", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("instrument_id", "integer", (c) => c.notNull())
    .addColumn("fee_cents", "bigint", (c) => c.notNull())
    .addColumn("is_weekend", "integer", (c) => c.notNull())
    .addColumn("charged_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("demo_overnight_fees_pk", ["position_id", "rollover_date"])
    .execute();
  await db.schema.createIndex("demo_overnight_fees_user").on("demo_overnight_fees").column("user_id").execute();
  // SDRT taken when a position opened (decision 0130): one row per position that paid it.
  await db.schema
    .createTable("demo_position_taxes")
    .addColumn("position_id", "integer", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("tax_cents", "bigint", (c) => c.notNull())
    .addColumn("charged_at", "text", (c) => c.notNull())
    .execute();
}
