import type { Executor } from "../../../infra/db/executor.js";
import { insertShape, prepared, rowFrom } from "../../../infra/db/prepared.js";
import { count, type Ids, type LikeRow } from "../shared/social.rows.js";

/** The read of the discussion path, compiled once (infra/db/prepared.ts; see posts/post-queries.repository.ts). */
const Q = {
  insertLike: prepared(
    (db, columns: readonly string[], values: readonly unknown[]) =>
      db
        .insertInto("likes")
        .values(rowFrom<Omit<LikeRow, "seq">>(columns, values))
        .onConflict((oc) => oc.columns(["entityId", "userId"]).doNothing())
        .returning("seq"),
    (columns) => columns.join(),
  ),
  likeCounts: prepared(
    (db, _: null, [entityIds]: readonly [Ids]) =>
      db
        .selectFrom("likes")
        .select(["entityId", (eb) => eb.fn.countAll<number | string>().as("n")])
        .where("entityId", "in", entityIds)
        .groupBy("entityId"),
    () => "",
  ),
  /** The newest `perEntity` likes of each of `entityIds`: a window over all their likes. */
  newestLikesOfMany: prepared(
    (db, _: null, [entityIds, perEntity]: readonly [Ids, number]) => {
      const inner = db
        .selectFrom("likes")
        .selectAll()
        .select((eb) =>
          eb.fn
            .agg<number>("row_number")
            .over((o) => o.partitionBy("entityId").orderBy("seq", "desc"))
            .as("rn"),
        )
        .where("entityId", "in", entityIds);
      return db.selectFrom(inner.as("l")).selectAll().where("l.rn", "<=", perEntity);
    },
    () => "",
  ),
  /**
   * The newest `limit` likes of each of `entityIds`, one `limit` arm per entity (each walks
   * `likes_entity_seq` from its end), in one statement.
   */
  newestLikesOfEach: prepared(
    (db, _: null, [entityIds, limit]: readonly [Ids, number]) => {
      const arms = entityIds.map((id, i) =>
        db
          .selectFrom(
            db
              .selectFrom("likes")
              .selectAll()
              .where("entityId", "=", id)
              .orderBy("seq", "desc")
              .limit(limit)
              .as(`l${i}`),
          )
          .selectAll(),
      );
      return arms.slice(1).reduce((all, arm) => all.unionAll(arm), arms[0]!);
    },
    () => "",
  ),
};

/**
 * Entities with more likes than this are previewed by a `limit` arm of their own: the window reads
 * every like of the entities it is given, and a popular post's thousands were read to show ten
 * (docs/decisions/0193).
 */
export const WINDOWED_LIKES_MAX = 32;

/** Each entity's like count; entities without likes are absent. */
async function likeCountsOf(db: Executor, entityIds: readonly string[]): Promise<Map<string, number>> {
  if (entityIds.length === 0) return new Map();
  const rows = await Q.likeCounts(db, null, [entityIds]);
  return new Map(rows.map((r) => [r.entityId, count(r.n)]));
}

export const reactionsRepository = (db: Executor) => ({
  /** The new like's `seq`; undefined when the user already likes the entity. */
  async insertLike(row: Omit<LikeRow, "seq">): Promise<number | undefined> {
    const [columns, values] = insertShape(row);
    const [r] = await Q.insertLike(db, columns, values);
    return r?.seq;
  },

  async deleteLike(entityId: string, userId: string): Promise<void> {
    await db.deleteFrom("likes").where("entityId", "=", entityId).where("userId", "=", userId).execute();
  },

  likeCounts: (entityIds: readonly string[]): Promise<Map<string, number>> => likeCountsOf(db, entityIds),

  /**
   * The newest `perEntity` likes of each entity (newest first) and each entity's like count;
   * entities without likes are absent from `totals`. The counts come first (an index-only read):
   * the entities with at most WINDOWED_LIKES_MAX likes are previewed together by one window query,
   * those with more by one statement of a `limit` arm each: at most three statements, and a
   * preview never reads more than WINDOWED_LIKES_MAX likes of an entity.
   */
  async likesPreview(
    entityIds: readonly string[],
    perEntity: number,
  ): Promise<{ likes: LikeRow[]; totals: Map<string, number> }> {
    const totals = await likeCountsOf(db, entityIds);
    if (perEntity <= 0 || totals.size === 0) return { likes: [], totals };
    const few: string[] = [];
    const many: string[] = [];
    for (const [id, n] of totals) (n <= WINDOWED_LIKES_MAX ? few : many).push(id);
    const [windowed, limited] = await Promise.all([
      few.length > 0 ? Q.newestLikesOfMany(db, null, [few, perEntity]) : [],
      many.length > 0 ? Q.newestLikesOfEach(db, null, [many, perEntity]) : [],
    ]);
    const likes: LikeRow[] = windowed.map(({ rn: _, ...row }) => row as LikeRow);
    likes.push(...limited);
    return { likes: likes.sort((a, b) => b.seq - a.seq), totals };
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
