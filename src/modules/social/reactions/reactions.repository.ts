import type { Executor } from "../../../infra/db/executor.js";
import { prepared } from "../../../infra/db/prepared.js";
import { count, type Ids, type LikeRow } from "../shared/social.rows.js";

/** The read of the discussion path, compiled once (infra/db/prepared.ts; see posts/post-queries.repository.ts). */
const Q = {
  likesPreview: prepared(
    (db, _: null, [entityIds, perEntity]: readonly [Ids, number]) => {
      const inner = db
        .selectFrom("likes")
        .selectAll()
        .select((eb) => [
          eb.fn
            .agg<number>("row_number")
            .over((o) => o.partitionBy("entityId").orderBy("seq", "desc"))
            .as("rn"),
          eb.fn
            .countAll<number | string>()
            .over((o) => o.partitionBy("entityId"))
            .as("total"),
        ])
        .where("entityId", "in", entityIds);
      return db.selectFrom(inner.as("l")).selectAll().where("l.rn", "<=", perEntity).orderBy("l.seq", "desc");
    },
    () => "",
  ),
};

export const reactionsRepository = (db: Executor) => ({
  async insertLike(row: Omit<LikeRow, "seq">): Promise<boolean> {
    const r = await db
      .insertInto("likes")
      .values(row)
      .onConflict((oc) => oc.columns(["entityId", "userId"]).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  async deleteLike(entityId: string, userId: string): Promise<void> {
    await db.deleteFrom("likes").where("entityId", "=", entityId).where("userId", "=", userId).execute();
  },

  async likeCounts(entityIds: readonly string[]): Promise<Map<string, number>> {
    if (entityIds.length === 0) return new Map();
    const rows = await db
      .selectFrom("likes")
      .select(["entityId", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("entityId", "in", entityIds)
      .groupBy("entityId")
      .execute();
    return new Map(rows.map((r) => [r.entityId, count(r.n)]));
  },

  /**
   * The newest `perEntity` likes of each entity and each entity's like count, in one query
   * (window functions, on both engines). Entities without likes are absent from `totals`.
   */
  async likesPreview(
    entityIds: readonly string[],
    perEntity: number,
  ): Promise<{ likes: LikeRow[]; totals: Map<string, number> }> {
    if (entityIds.length === 0) return { likes: [], totals: new Map() };
    // Entities are read even when no like is shown: their totals are.
    const rows = await Q.likesPreview(db, null, [entityIds, Math.max(perEntity, 1)]);
    const totals = new Map<string, number>();
    const likes: LikeRow[] = [];
    for (const { rn, total, ...row } of rows) {
      totals.set(row.entityId, count(total));
      if (Number(rn) <= perEntity) likes.push(row as LikeRow);
    }
    return { likes, totals };
  },

  async likesPage(entityId: string, offset: number, limit: number): Promise<LikeRow[]> {
    return db
      .selectFrom("likes")
      .selectAll()
      .where("entityId", "=", entityId)
      .orderBy("seq", "desc")
      .limit(limit)
      .offset(offset)
      .execute();
  },

  // ------------------------------------------------------------------ saves, pins, follows
  async addMark(table: "saves" | "pins" | "postFollows", postId: string, userId: string, at: string): Promise<void> {
    await db
      .insertInto(table)
      .values({ postId, userId, createdAt: at })
      .onConflict((oc) => oc.columns(table === "postFollows" ? ["postId", "userId"] : ["userId", "postId"]).doNothing())
      .execute();
  },

  async removeMark(table: "saves" | "pins" | "postFollows", postId: string, userId: string): Promise<void> {
    await db.deleteFrom(table).where("postId", "=", postId).where("userId", "=", userId).execute();
  },
});
