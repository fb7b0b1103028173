import { type Kysely, sql } from "kysely";
import type { Dialect } from "../database.js";

/**
 * The order book's status index holds pending orders only (docs/decisions/0208). Every query that
 * reads demo_orders by status asks for pending ones (`status_id = 0`: a user's resting orders, all
 * of them at start, the lapsed ones), and almost every order is a market order, executed when it is
 * written. Indexed by `(status_id, user_id)`, each of those put an entry in its user's leaf of the
 * index: one more page for every commit to write: about 25 µs of CPU per market order
 * (bench/trading-orders.mjs --floor, where the whole order's SQL is 165-225 µs). Both engines plan the pending reads, whose
 * status is a bound parameter, with the partial index (test/trading/pending-index.test.ts).
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`drop index if exists demo_orders_status`.execute(db);
  await sql`create index demo_orders_pending on demo_orders (user_id, order_id) where status_id = 0`.execute(db);
}
