import type { Executor } from "../../../infra/db/executor.js";
import {
  count,
  type MentionRow,
  type NewPost,
  type PostRow,
  type PostStats,
  type TagRow,
} from "../shared/social.rows.js";
import { visible } from "../shared/visibility.repository.js";
import { postQueries as Q } from "./post-queries.repository.js";

export const postsRepository = (db: Executor) => ({
  async insertPost(row: NewPost): Promise<PostRow> {
    return db.insertInto("posts").values(row).returningAll().executeTakeFirstOrThrow();
  },

  async insertTags(rows: TagRow[]): Promise<void> {
    if (rows.length > 0) await db.insertInto("postTags").values(rows).execute();
  },

  async insertMentions(entityId: string, users: { userId: string; isDirect: boolean }[]): Promise<void> {
    if (users.length === 0) return;
    await db
      .insertInto("mentions")
      .values(users.map((u, position) => ({ entityId, userId: u.userId, isDirect: u.isDirect ? 1 : 0, position })))
      .execute();
  },

  async findPost(id: string): Promise<PostRow | undefined> {
    return db.selectFrom("posts").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async postsByIds(ids: readonly string[]): Promise<PostRow[]> {
    if (ids.length === 0) return [];
    return Q.postsByIds(db, null, [ids]);
  },

  async updatePost(
    id: string,
    patch: Partial<Pick<PostRow, "text" | "languageCode" | "attachments" | "updatedAt" | "editStatus" | "isDeleted">>,
  ) {
    await db.updateTable("posts").set(patch).where("id", "=", id).execute();
  },

  /** The post (whatever its state) and whether `requesterId` may see it: one query. */
  async findPostFor(postId: string, requesterId: string | null): Promise<(PostRow & { visible: boolean }) | undefined> {
    const [row] = await Q.findPostFor(db, requesterId === null, [postId, requesterId ?? ""]);
    if (!row) return undefined;
    const { visible: v, ...post } = row;
    // `visible` first: a field after a spread costs a hidden class per row (decision 0213).
    return { visible: count(v) === 1, ...(post as PostRow) };
  },

  /** Whether `requesterId` (null = anonymous) may see this one post. */
  async isVisible(postId: string, requesterId: string | null): Promise<boolean> {
    const row = await db
      .selectFrom("posts")
      .select("posts.id")
      .where("posts.id", "=", postId)
      .where((eb) => visible(eb, requesterId))
      .executeTakeFirst();
    return row !== undefined;
  },

  async tagsFor(postIds: readonly string[]): Promise<TagRow[]> {
    if (postIds.length === 0) return [];
    return Q.tagsFor(db, null, [postIds]);
  },

  /**
   * Tags of the posts and mentions of the posts and comments (`entityIds`) in one query, each list
   * in position order: the instrument id of a tag, the user id of a mention.
   */
  async tagsAndMentions(
    postIds: readonly string[],
    entityIds: readonly string[],
  ): Promise<{ tags: { postId: string; instrumentId: number }[]; mentions: Omit<MentionRow, "position">[] }> {
    const tags: { postId: string; instrumentId: number }[] = [];
    const mentions: Omit<MentionRow, "position">[] = [];
    if (entityIds.length === 0) return { tags, mentions };
    const rows = postIds.length === 0 ? [] : await Q.tagsAndMentions(db, null, [postIds, entityIds]);
    for (const r of rows) {
      if (r.kind === "tag") tags.push({ postId: r.entityId, instrumentId: Number(r.ref) });
      else mentions.push({ entityId: r.entityId, userId: r.ref, isDirect: count(r.isDirect) });
    }
    if (postIds.length === 0) {
      for (const m of await Q.mentionsFor(db, null, [entityIds])) mentions.push(m);
    }
    return { tags, mentions };
  },

  /**
   * Per post, in one query: comment counts (all, top-level), share count (a share counts on its
   * origin post and on an intermediate shared post, once per post) and, for a requester, whether
   * they like, saved, pinned and follow it. Correlated aggregate subqueries, each an index lookup.
   */
  async postStats(postIds: readonly string[], requesterId: string | null): Promise<Map<string, PostStats>> {
    const out = new Map<string, PostStats>();
    if (postIds.length === 0) return out;
    const rows = await Q.postStats(db, null, [postIds, requesterId ?? ""]);
    for (const r of rows) {
      out.set(r.id, {
        commentsAll: count(r.commentsAll),
        commentsTop: count(r.commentsTop),
        shares: count(r.shares),
        liked: count(r.liked) === 1,
        saved: count(r.saved) === 1,
        pinned: count(r.pinned) === 1,
        followed: count(r.followed) === 1,
      });
    }
    return out;
  },

  async sharesOf(postId: string, afterSeq: number | null, order: "asc" | "desc", limit: number) {
    let q = db
      .selectFrom("posts")
      .select(["id", "seq", "ownerId", "createdAt"])
      .where((eb) => eb.or([eb("sharedOriginPostId", "=", postId), eb("sharedPostId", "=", postId)]))
      .where("isDeleted", "=", 0);
    if (afterSeq !== null) q = q.where("seq", order === "desc" ? "<" : ">", afterSeq);
    return q.orderBy("seq", order).limit(limit).execute();
  },

  async countShares(postId: string): Promise<number> {
    const row = await db
      .selectFrom("posts")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where((eb) => eb.or([eb("sharedOriginPostId", "=", postId), eb("sharedPostId", "=", postId)]))
      .where("isDeleted", "=", 0)
      .executeTakeFirstOrThrow();
    return count(row.n);
  },
});
