import { type Kysely, sql } from "kysely";
import type { Dialect } from "../database.js";

/**
 * Everything one user has marked, read by user (docs/decisions/0191): the caller's part of shared
 * documents is kept in memory per caller and loaded whole, so likes, post follows and poll votes
 * need an index that starts with the user (saves and pins have one: their unique keys).
 */
const BY_USER: readonly (readonly [name: string, table: string, columns: string])[] = [
  ["likes_user_entity", "likes", "user_id, entity_id"],
  ["post_follows_user", "post_follows", "user_id, post_id"],
  ["poll_votes_user", "poll_votes", "user_id, option_id"],
];

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const [name, table, columns] of BY_USER) {
    await sql`create index ${sql.raw(name)} on ${sql.raw(table)} (${sql.raw(columns)})`.execute(db);
  }
}
