import { type Kysely, sql } from "kysely";
import type { Dialect } from "../database.js";

/**
 * The order book's status index holds pending orders only (docs/decisions/0208). Every query that
 * reads demo_orders by status asks for pending ones (`status_id = 0`: a user's resting orders, all
 * of them at start, the lapsed ones), and almost every order is a market order, executed when it is
 * written. Indexed by `(status_id, user_id)`, each of those put an entry in its user's leaf of the
 * index, one more page for every commit to write: about 25 µs of CPU per market order
 * (bench/trading-orders.mjs --floor). The pending reads write the status into their SQL, so
 * that SQLite matches them to the index without preparing them again at each call.
 * `if exists` / `if not exists`: on SQLite the two statements are not one transaction, and a start
 * stopped between them runs the migration again.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`drop index if exists demo_orders_status`.execute(db);
  await sql`create index if not exists demo_orders_pending on demo_orders (user_id, order_id)
    where status_id = 0`.execute(db);
}
