import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * The audit trail of security events (src/modules/audit, docs/decisions/0103): one row per event,
 * kept AUDIT_RETENTION_DAYS. `id` orders the rows (an integer the store assigns).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("audit_events")
    .addColumn("id", dialect === "postgres" ? "bigserial" : "integer", (c) =>
      dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("actor", "text")
    .addColumn("user_id", "text")
    .addColumn("address", "text")
    .addColumn("details", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("audit_events_at").on("audit_events").column("at").execute();
  await db.schema.createIndex("audit_events_action_at").on("audit_events").columns(["action", "at"]).execute();
}
