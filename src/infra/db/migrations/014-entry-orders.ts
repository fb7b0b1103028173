import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * The demo order book (src/modules/trading/orders, entry-orders; docs/decisions/0123, 0124): entry
 * (market-if-touched) orders rest in demo_orders beside the market orders, so that v1 and v2 read
 * one book. `trigger_rate` is set on entry orders only; `reference_id` is the x-request-id an order
 * was placed with (v2 lookup by referenceId); `request_type` how it was sized (byAmount, byUnits,
 * byContracts); `expires_at` when a pending entry order lapses; `error_message` why one was rejected.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // One column per statement: SQLite's alter table adds one at a time.
  const add = (name: string, type: "text" | "double precision") =>
    db.schema.alterTable("demo_orders").addColumn(name, type).execute();
  await add("trigger_rate", "double precision");
  await add("reference_id", "text");
  await add("request_type", "text");
  await add("requested_contracts", "double precision");
  await add("expires_at", "text");
  await add("error_message", "text");
  // Pending entry orders are reloaded at start and listed per user; lookups by reference per user.
  await db.schema.createIndex("demo_orders_status").on("demo_orders").columns(["status_id", "user_id"]).execute();
  await db.schema.createIndex("demo_orders_reference").on("demo_orders").columns(["user_id", "reference_id"]).execute();
}
