import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Uploaded media (src/modules/media, docs/decisions/0122): who uploaded it, where its bytes are
 * (`storage_key` in the MediaStore), what they are, and whether a post or comment references it
 * (`referenced_at`, set when one is written; unreferenced uploads older than a day are purged).
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("attachments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("storage_key", "text", (c) => c.notNull().unique())
    .addColumn("mime", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("width", "integer", (c) => c.notNull())
    .addColumn("height", "integer", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("referenced_at", "text")
    .execute();
  await db.schema
    .createIndex("attachments_unreferenced")
    .on("attachments")
    .columns(["referenced_at", "created_at"])
    .execute();
}
