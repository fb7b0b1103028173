import type { Executor } from "../../../infra/db/executor.js";
import { insertShape } from "../../../infra/db/prepared.js";
import { type CommentRow, count, type NewComment } from "../shared/social.rows.js";
import { notBlockedWith } from "../shared/visibility.repository.js";
import { commentQueries as Q } from "./comment-queries.repository.js";

/**
 * A parent with more visible comments than this is previewed by a `limit` arm of its own; quieter
 * ones share one window, which reads all their comments (decision 0197, as 0193 did for likes).
 */
export const WINDOWED_COMMENTS_MAX = 32;

/** Parents with more comments than the window should read, and the others that have any. */
function bySize(parentIds: readonly string[], sizes: ReadonlyMap<string, number>) {
  const busy: string[] = [];
  const quiet: string[] = [];
  for (const id of parentIds) {
    const size = sizes.get(id) ?? 0;
    if (size > WINDOWED_COMMENTS_MAX) busy.push(id);
    else if (size > 0) quiet.push(id);
  }
  return { busy, quiet };
}

export const commentsRepository = (db: Executor) => ({
  async insertComment(row: NewComment): Promise<CommentRow> {
    const [columns, values] = insertShape(row);
    const [inserted] = await Q.insertComment(db, columns, values);
    return inserted!;
  },

  async findComment(id: string): Promise<CommentRow | undefined> {
    return db.selectFrom("comments").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async commentsByIds(ids: readonly string[]): Promise<CommentRow[]> {
    if (ids.length === 0) return [];
    return Q.commentsByIds(db, null, [ids]);
  },

  async updateComment(
    id: string,
    patch: Partial<
      Pick<CommentRow, "text" | "languageCode" | "attachments" | "updatedAt" | "editStatus" | "isDeleted">
    >,
  ) {
    await db.updateTable("comments").set(patch).where("id", "=", id).execute();
  },

  /** Per comment, in one query: its visible replies and whether `requesterId` likes it. */
  async commentStats(
    commentIds: readonly string[],
    requesterId: string | null,
  ): Promise<Map<string, { replies: number; liked: boolean }>> {
    const out = new Map<string, { replies: number; liked: boolean }>();
    if (commentIds.length === 0) return out;
    const rows = await Q.commentStats(db, null, [commentIds, requesterId ?? ""]);
    for (const r of rows) out.set(r.id, { replies: count(r.replies), liked: count(r.liked) === 1 });
    return out;
  },

  /**
   * The newest (or, `order` "asc", the oldest) `perParent` visible comments of each post (or
   * replies of each comment), in `seq` order (decision 0197). A window over all their comments
   * reads every one of them; a `limit` arm walks one parent's index to its first rows but costs
   * more per parent. So: one parent, an arm; with `sizes` (each parent's visible comments, as the
   * post's figures count them), none for a parent without any, one window over the quiet ones and
   * an arm for each busy one; else one window.
   */
  async commentsPreview(
    by: "postId" | "parentId",
    parentIds: readonly string[],
    perParent: number,
    requesterId: string | null,
    order: "asc" | "desc" = "desc",
    sizes?: ReadonlyMap<string, number>,
  ): Promise<CommentRow[]> {
    if (parentIds.length === 0 || perParent <= 0) return [];
    const shape = { by, anon: requesterId === null, order };
    const me = requesterId ?? "";
    const { busy, quiet } = sizes
      ? bySize(parentIds, sizes)
      : parentIds.length === 1
        ? { busy: parentIds, quiet: [] }
        : { busy: [], quiet: parentIds };
    const [armed, windowed] = await Promise.all([
      busy.length > 0 ? Q.commentsPreviewOfEach(db, shape, [busy, me, perParent]) : [],
      quiet.length > 0 ? Q.commentsPreview(db, shape, [quiet, me, perParent]) : [],
    ]);
    const rows = [...armed, ...windowed.map(({ rn: _rn, ...row }) => row as CommentRow)];
    return rows.sort(order === "asc" ? (a, b) => a.seq - b.seq : (a, b) => b.seq - a.seq);
  },

  /** A page of comments of a post (parentId null) or of replies of a comment. */
  async listComments(
    filter: { postId: string; parentId: string | null },
    afterSeq: number | null,
    order: "asc" | "desc",
    limit: number,
    requesterId: string | null,
  ): Promise<CommentRow[]> {
    let q = db
      .selectFrom("comments")
      .selectAll()
      .where("postId", "=", filter.postId)
      .where("isDeleted", "=", 0)
      .where("isSpam", "=", 0);
    q = filter.parentId === null ? q.where("parentId", "is", null) : q.where("parentId", "=", filter.parentId);
    if (requesterId !== null) q = q.where((eb) => notBlockedWith(eb, requesterId, "comments.ownerId"));
    if (afterSeq !== null) q = q.where("seq", order === "desc" ? "<" : ">", afterSeq);
    return q.orderBy("seq", order).limit(limit).execute();
  },

  async countComments(filter: { postId: string; parentId: string | null }): Promise<number> {
    let q = db
      .selectFrom("comments")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("postId", "=", filter.postId)
      .where("isDeleted", "=", 0)
      .where("isSpam", "=", 0);
    q = filter.parentId === null ? q.where("parentId", "is", null) : q.where("parentId", "=", filter.parentId);
    return count((await q.executeTakeFirstOrThrow()).n);
  },
});
