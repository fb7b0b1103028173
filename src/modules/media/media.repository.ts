import type { Executor } from "../../infra/db/executor.js";
import type { AttachmentsTable } from "../../infra/db/schema.js";

export type MediaRow = AttachmentsTable;

export function mediaRepository(db: Executor) {
  return {
    async insert(row: MediaRow): Promise<void> {
      await db.insertInto("attachments").values(row).execute();
    },
    find(id: string): Promise<MediaRow | undefined> {
      return db.selectFrom("attachments").selectAll().where("id", "=", id).executeTakeFirst();
    },
    findMany(ids: readonly string[]): Promise<MediaRow[]> {
      if (ids.length === 0) return Promise.resolve([]);
      return db.selectFrom("attachments").selectAll().where("id", "in", ids).execute();
    },
    /** Marks the uploads referenced (keeping an earlier mark); returns how many still exist. */
    async markReferenced(ids: readonly string[], now: string): Promise<number> {
      if (ids.length === 0) return 0;
      const result = await db
        .updateTable("attachments")
        .set((eb) => ({ referencedAt: eb.fn.coalesce("referencedAt", eb.val(now)) }))
        .where("id", "in", ids)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    unreferencedBefore(cutoff: string, limit: number): Promise<Pick<MediaRow, "id" | "storageKey">[]> {
      return db
        .selectFrom("attachments")
        .select(["id", "storageKey"])
        .where("referencedAt", "is", null)
        .where("createdAt", "<", cutoff)
        .orderBy("createdAt")
        .limit(limit)
        .execute();
    },
    /** Deletes the row only while it is still unreferenced; true when it was deleted. */
    async deleteUnreferenced(id: string): Promise<boolean> {
      const result = await db
        .deleteFrom("attachments")
        .where("id", "=", id)
        .where("referencedAt", "is", null)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
