import { type Kysely, sql } from "kysely";
import type { Dialect } from "../database.js";

/**
 * A token that changes with every write to people search's rows (docs/decisions/0181): the snapshot
 * pass, a privacy change, a change of copiers. Search keeps its answers keyed by it, so an answer is
 * reused only while the rows it was computed from are unchanged, in any instance. A random value
 * rather than a counter: a store restored from a snapshot never brings back a token that meant
 * other rows.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("people_stats_version")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("token", "bigint", (c) => c.notNull())
    .execute();
  await sql`insert into people_stats_version (id, token) values (1, 0)`.execute(db);
}
