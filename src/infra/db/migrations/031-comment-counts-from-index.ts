import { type Kysely, sql } from "kysely";
import type { Dialect } from "../database.js";

/**
 * A post's comment counts (all visible comments, and the top-level ones) read from one index,
 * never from the rows (docs/decisions/0197): counted through `(post_id, seq)`, each comment's row
 * was read to test `is_deleted`, `is_spam` and `parent_id`, and a hot post's counts grew with its
 * thousands of comments on every rebuild of its document.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`create index comments_post_counts on comments (post_id, is_deleted, is_spam, parent_id)`.execute(db);
}
