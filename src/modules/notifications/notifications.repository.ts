import type { Selectable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import { insertShape, prepared, rowFrom } from "../../infra/db/prepared.js";
import type { NotificationsTable } from "../../infra/db/schema.js";

export type NotificationRow = Selectable<NotificationsTable>;
export type ReadStatus = "New" | "Seen" | "Read";

/** The hot read of GET notifications, built and compiled once (infra/db/prepared.ts). */
const listForUserQuery = prepared(
  (db: Executor, _shape: null, [userId]: readonly [string]) =>
    db
      .selectFrom("notifications")
      .selectAll()
      .where("userId", "=", userId)
      .orderBy("publishDate", "desc")
      .orderBy("id", "desc"),
  () => "",
);

/** One notification's insert, compiled once per set of columns (decision 0199). */
const insertQuery = prepared(
  (db: Executor, columns: readonly string[], values: readonly unknown[]) =>
    db.insertInto("notifications").values(rowFrom<NotificationRow>(columns, values)),
  (columns) => columns.join(),
);

export const notificationsRepository = (db: Executor) => ({
  async insert(row: NotificationRow): Promise<void> {
    const [columns, values] = insertShape(row);
    await insertQuery(db, columns, values);
  },

  /** Many at once, a few hundred rows per statement (a batch of copies closed, decision 0162). */
  async insertMany(rows: readonly NotificationRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 250) {
      await db
        .insertInto("notifications")
        .values(rows.slice(i, i + 250))
        .execute();
    }
  },

  /** Newest first; ties broken by id so the order is stable. */
  async listForUser(userId: string): Promise<NotificationRow[]> {
    return listForUserQuery(db, null, [userId]);
  },

  /** Moves the given notifications from New to Seen (others, or already moved, are left alone). */
  async markSeen(userId: string, ids: readonly string[]): Promise<number> {
    let moved = 0;
    // Chunked so that the bound-parameter count stays far below every engine's limit.
    for (let i = 0; i < ids.length; i += 500) {
      const result = await db
        .updateTable("notifications")
        .set({ readStatus: "Seen" })
        .where("userId", "=", userId)
        .where("readStatus", "=", "New")
        .where("id", "in", ids.slice(i, i + 500))
        .executeTakeFirst();
      moved += Number(result.numUpdatedRows);
    }
    return moved;
  },

  /** Moves every notification of the user in `from` to `to`; returns how many moved. */
  async moveStatus(userId: string, from: readonly ReadStatus[], to: ReadStatus): Promise<number> {
    const result = await db
      .updateTable("notifications")
      .set({ readStatus: to })
      .where("userId", "=", userId)
      .where("readStatus", "in", from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  },
});
