import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Users whose privacy or copiers changed since the snapshot pass began (docs/decisions/0180). On
 * SQLite the pass builds the day's `people_stats` apart and swaps it in; the swap reapplies these
 * users' privacy and copiers from their sources, so a change made while the pass ran is kept.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("people_stats_touched")
    .addColumn("user_id", "text", (c) => c.primaryKey())
    .execute();
}
