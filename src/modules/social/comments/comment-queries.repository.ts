import type { Executor } from "../../../infra/db/executor.js";
import { prepared, rowFrom } from "../../../infra/db/prepared.js";
import type { Ids, NewComment } from "../shared/social.rows.js";
import { flag, notBlockedWith } from "../shared/visibility.repository.js";

/** A preview's parents (posts or comments), whether its reader is anonymous, and its order. */
export interface PreviewShape {
  by: "postId" | "parentId";
  anon: boolean;
  order: "asc" | "desc";
}

/** The comment reads of the discussion path, compiled once per shape (see post-queries.repository.ts). */
export const commentQueries = {
  /** A new comment, as stored (decision 0199: compiled once per set of columns). */
  insertComment: prepared(
    (db, columns: readonly string[], values: readonly unknown[]) =>
      db.insertInto("comments").values(rowFrom<NewComment>(columns, values)).returningAll(),
    (columns) => columns.join(),
  ),

  commentsByIds: prepared(
    (db, _: null, [ids]: readonly [Ids]) => db.selectFrom("comments").selectAll().where("id", "in", ids),
    () => "",
  ),

  commentStats: prepared(
    (db, _: null, [commentIds, me]: readonly [Ids, string]) =>
      db
        .selectFrom("comments as c")
        .select((eb) => [
          "c.id",
          eb
            .selectFrom("comments as r")
            .select(eb.fn.countAll<number | string>().as("n"))
            .whereRef("r.parentId", "=", "c.id")
            .where("r.isDeleted", "=", 0)
            .where("r.isSpam", "=", 0)
            .as("replies"),
          flag(
            eb,
            eb
              .selectFrom("likes as m")
              .select("m.entityId")
              .whereRef("m.entityId", "=", "c.id")
              .where("m.userId", "=", me),
          ).as("liked"),
        ])
        .where("c.id", "in", commentIds),
    () => "",
  ),

  /** Quiet parents: one window over all their comments (each parent's first `perParent` by seq). */
  commentsPreview: prepared(
    (db, shape: PreviewShape, [parentIds, me, perParent]: readonly [Ids, string, number]) => {
      const column = shape.by === "postId" ? "postId" : "parentId";
      const inner = visibleComments(db, shape, me)
        .select((eb) =>
          eb.fn
            .agg<number>("row_number")
            .over((o) => o.partitionBy(column).orderBy("seq", shape.order))
            .as("rn"),
        )
        .where(column, "in", parentIds);
      return db.selectFrom(inner.as("c")).selectAll().where("c.rn", "<=", perParent).orderBy("c.seq", shape.order);
    },
    (shape) => `${shape.by}.${shape.anon}.${shape.order}`,
  ),

  /**
   * Busy parents (more than WINDOWED_COMMENTS_MAX comments), or one parent: one `limit` arm per
   * parent, each walking its parent's index to the first `perParent` rows (decision 0197), where
   * the window reads every comment first: a hot post's thousands, for ten. Rows come per parent,
   * not in `seq` order overall.
   */
  commentsPreviewOfEach: prepared(
    (db, shape: PreviewShape, [parentIds, me, perParent]: readonly [Ids, string, number]) => {
      const column = shape.by === "postId" ? "postId" : "parentId";
      const arms = parentIds.map((id, i) =>
        db
          .selectFrom(
            visibleComments(db, shape, me)
              .where(column, "=", id)
              .orderBy("seq", shape.order)
              .limit(perParent)
              .as(`c${i}`),
          )
          .selectAll(),
      );
      return arms.slice(1).reduce((all, arm) => all.unionAll(arm), arms[0]!);
    },
    (shape) => `${shape.by}.${shape.anon}.${shape.order}`,
  ),
};

/** Comments shown to `me` (anyone, `anon`): not deleted, not spam, nobody blocked either way; a post's top level only. */
function visibleComments(db: Executor, shape: PreviewShape, me: string) {
  return db
    .selectFrom("comments")
    .selectAll()
    .where("isDeleted", "=", 0)
    .where("isSpam", "=", 0)
    .$if(shape.by === "postId", (q) => q.where("parentId", "is", null))
    .$if(!shape.anon, (q) => q.where((eb) => notBlockedWith(eb, me, "comments.ownerId")));
}
