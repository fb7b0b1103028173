import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Named snapshots of the world for the sandbox (src/modules/sandbox, docs/decisions/0152): every
 * world table's rows as one JSON document, restored by `POST /sandbox/v1/world/reset`.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("sandbox_snapshots")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("tables", "integer", (c) => c.notNull())
    .addColumn("rows", "integer", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .execute();
}
