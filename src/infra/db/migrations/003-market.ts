import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // The instrument catalog: reference data, written by the catalog seed and read everywhere.
  await db.schema
    .createTable("instruments")
    .addColumn("instrument_id", "integer", (c) => c.primaryKey())
    .addColumn("symbol", "text", (c) => c.notNull().unique())
    .addColumn("symbol_lower", "text", (c) => c.notNull())
    .addColumn("display_name", "text", (c) => c.notNull())
    .addColumn("display_name_lower", "text", (c) => c.notNull())
    .addColumn("asset_type", "text", (c) => c.notNull())
    .addColumn("asset_type_id", "integer", (c) => c.notNull())
    .addColumn("asset_type_sub_category_id", "integer", (c) => c.notNull())
    .addColumn("exchange_id", "integer", (c) => c.notNull())
    .addColumn("has_expiration_date", "integer", (c) => c.notNull())
    .addColumn("avatar_small", "text", (c) => c.notNull())
    .addColumn("avatar_medium", "text", (c) => c.notNull())
    .addColumn("avatar_large", "text", (c) => c.notNull())
    // JSON array of integers, e.g. [1,2,5].
    .addColumn("allowed_leverages", "text", (c) => c.notNull())
    // USD cents: money is never a float.
    .addColumn("min_amount_cents", "integer", (c) => c.notNull())
    // Prices are rates, not balances: a double is exact enough and the engine rounds to `precision`.
    .addColumn("price_seed", "double precision", (c) => c.notNull())
    .addColumn("precision", "integer", (c) => c.notNull())
    .addColumn("updated", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("instruments_symbol_lower").on("instruments").column("symbol_lower").execute();
  await db.schema.createIndex("instruments_asset_type").on("instruments").column("asset_type_id").execute();
}
