import { type ExpressionBuilder, type Selectable, sql } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import { prepared } from "../../infra/db/prepared.js";
import type {
  CommentsTable,
  Database,
  LikesTable,
  MentionsTable,
  PollOptionsTable,
  PollsTable,
  PostsTable,
  PostTagsTable,
} from "../../infra/db/schema.js";

export type PostRow = Selectable<PostsTable>;
export type CommentRow = Selectable<CommentsTable>;
export type LikeRow = Selectable<LikesTable>;
export type PollRow = Selectable<PollsTable>;
export type PollOptionRow = Selectable<PollOptionsTable>;
export type TagRow = Selectable<PostTagsTable>;
export type MentionRow = Selectable<MentionsTable>;
export type NewPost = Omit<PostRow, "seq">;
export type NewComment = Omit<CommentRow, "seq">;

/** Which posts a feed pages through; each is served by one index (see migration 006). */
export type FeedSource =
  | { kind: "all" }
  | { kind: "owner"; ownerId: string }
  | { kind: "instrument"; instrumentId: number }
  | { kind: "following"; followerId: string }
  | { kind: "saved"; userId: string }
  | { kind: "pinned"; userId: string }
  | { kind: "forYou"; userId: string; instrumentIds: readonly number[] };

type PostsEb = ExpressionBuilder<Database & { owner: Database["users"] }, "posts" | "owner">;

/**
 * What a requester may see: not deleted, not spam, not a private profile's (unless their own),
 * and nothing across a block in either direction.
 */
function visible(eb: PostsEb, requesterId: string | null) {
  const conditions = [eb("posts.isDeleted", "=", 0), eb("posts.isSpam", "=", 0)];
  if (requesterId === null) return eb.and([...conditions, eb("owner.isPrivate", "=", 0)]);
  return eb.and([
    ...conditions,
    eb.or([eb("owner.isPrivate", "=", 0), eb("owner.id", "=", requesterId)]),
    eb.not(
      eb.exists(
        eb
          .selectFrom("userBlocks")
          .select("userBlocks.blockerId")
          .where("userBlocks.blockerId", "=", requesterId)
          .whereRef("userBlocks.blockedId", "=", "posts.ownerId"),
      ),
    ),
    eb.not(
      eb.exists(
        eb
          .selectFrom("userBlocks")
          .select("userBlocks.blockerId")
          .whereRef("userBlocks.blockerId", "=", "posts.ownerId")
          .where("userBlocks.blockedId", "=", requesterId),
      ),
    ),
  ]);
}

const count = (v: unknown) => Number(v ?? 0);

/** 1 when the subquery has a row, else 0: an integer on both engines (PostgreSQL's exists is a boolean). */
// biome-ignore lint/suspicious/noExplicitAny: any table scope; the subquery is built by the caller
const flag = (eb: ExpressionBuilder<any, any>, sub: Parameters<ExpressionBuilder<any, any>["exists"]>[0]) =>
  eb.case().when(eb.exists(sub)).then(1).else(0).end();

export interface PostStats {
  commentsAll: number;
  commentsTop: number;
  shares: number;
  liked: boolean;
  saved: boolean;
  pinned: boolean;
  followed: boolean;
}

export const socialRepository = (db: Executor) => ({
  // ------------------------------------------------------------------ posts
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

  async replaceMentions(entityId: string, users: { userId: string; isDirect: boolean }[]): Promise<void> {
    await db.deleteFrom("mentions").where("entityId", "=", entityId).execute();
    await this.insertMentions(entityId, users);
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
    return { ...(post as PostRow), visible: count(v) === 1 };
  },

  /** Whether `requesterId` (null = anonymous) may see this one post. */
  async isVisible(postId: string, requesterId: string | null): Promise<boolean> {
    const row = await db
      .selectFrom("posts")
      .innerJoin("users as owner", "owner.id", "posts.ownerId")
      .select("posts.id")
      .where("posts.id", "=", postId)
      .where((eb) => visible(eb, requesterId))
      .executeTakeFirst();
    return row !== undefined;
  },

  /** One feed page (limit rows from offset), newest first by the source's own order. */
  async feedPage(source: FeedSource, requesterId: string | null, offset: number, limit: number): Promise<PostRow[]> {
    const key = sourceKey(source);
    const shape = { kind: source.kind, anon: requesterId === null, instruments: key.instruments.length };
    return Q.feedPage(db, shape, [requesterId ?? "", key.id, key.instruments, limit, offset]);
  },

  /** The instruments with most posts since `since`, most first. */
  async trendingInstruments(since: string, limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom("postTags")
      .select(["instrumentId", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("createdAt", ">=", since)
      .groupBy("instrumentId")
      .orderBy("n", "desc")
      .orderBy("instrumentId")
      .limit(limit)
      .execute();
    return rows.map((r) => r.instrumentId);
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

  async mentionsFor(entityIds: readonly string[]) {
    if (entityIds.length === 0) return [];
    return Q.mentionsFor(db, null, [entityIds]);
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

  // ------------------------------------------------------------------ polls
  async insertPoll(postId: string, title: string, options: { index: number; text: string }[]) {
    const poll = await db.insertInto("polls").values({ postId, title }).returningAll().executeTakeFirstOrThrow();
    await db
      .insertInto("pollOptions")
      .values(options.map((o) => ({ pollId: poll.id, idx: o.index, text: o.text })))
      .execute();
    return poll;
  },

  /**
   * The polls of the posts with their options, vote counts and whether `userId` voted for each
   * option: one query (a poll always has options).
   */
  async pollsWithOptions(
    postIds: readonly string[],
    userId: string | null,
  ): Promise<{ poll: PollRow; options: (PollOptionRow & { votes: number; mine: boolean })[] }[]> {
    if (postIds.length === 0) return [];
    const rows = await Q.pollsWithOptions(db, null, [postIds, userId ?? ""]);
    const byPoll = new Map<number, { poll: PollRow; options: (PollOptionRow & { votes: number; mine: boolean })[] }>();
    for (const r of rows) {
      let entry = byPoll.get(r.pollId);
      if (!entry) {
        entry = { poll: { id: r.pollId, postId: r.postId, title: r.title }, options: [] };
        byPoll.set(r.pollId, entry);
      }
      entry.options.push({
        id: r.id,
        pollId: r.pollId,
        idx: r.idx,
        text: r.text,
        votes: count(r.votes),
        mine: count(r.mine) === 1,
      });
    }
    return [...byPoll.values()];
  },

  async optionsFor(pollIds: readonly number[]): Promise<PollOptionRow[]> {
    if (pollIds.length === 0) return [];
    return db.selectFrom("pollOptions").selectAll().where("pollId", "in", pollIds).orderBy("idx").execute();
  },

  async voteCounts(pollIds: readonly number[]): Promise<Map<number, number>> {
    if (pollIds.length === 0) return new Map();
    const rows = await db
      .selectFrom("pollVotes")
      .select(["optionId", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("pollId", "in", pollIds)
      .groupBy("optionId")
      .execute();
    return new Map(rows.map((r) => [r.optionId, count(r.n)]));
  },

  async votesOf(userId: string, pollIds: readonly number[]): Promise<Set<number>> {
    if (pollIds.length === 0) return new Set();
    const rows = await db
      .selectFrom("pollVotes")
      .select("optionId")
      .where("userId", "=", userId)
      .where("pollId", "in", pollIds)
      .execute();
    return new Set(rows.map((r) => r.optionId));
  },

  async findPollOption(postId: string, pollId: number, optionId: number) {
    return db
      .selectFrom("polls")
      .leftJoin("pollOptions", (j) =>
        j.onRef("pollOptions.pollId", "=", "polls.id").on("pollOptions.id", "=", optionId),
      )
      .select(["polls.id as pollId", "polls.postId", "pollOptions.id as optionId"])
      .where("polls.id", "=", pollId)
      .executeTakeFirst()
      .then((r) => (r ? { ...r, belongsToPost: r.postId === postId } : undefined));
  },

  /** One vote per user and poll: insert, or move the existing vote (a single guarded statement). */
  async upsertVote(pollId: number, userId: string, optionId: number, at: string): Promise<void> {
    await db
      .insertInto("pollVotes")
      .values({ pollId, userId, optionId, createdAt: at })
      .onConflict((oc) => oc.columns(["pollId", "userId"]).doUpdateSet({ optionId, createdAt: at }))
      .execute();
  },

  async removeVote(pollId: number, userId: string, optionId: number): Promise<boolean> {
    const r = await db
      .deleteFrom("pollVotes")
      .where("pollId", "=", pollId)
      .where("userId", "=", userId)
      .where("optionId", "=", optionId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },

  // ------------------------------------------------------------------ comments
  async insertComment(row: NewComment): Promise<CommentRow> {
    return db.insertInto("comments").values(row).returningAll().executeTakeFirstOrThrow();
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
   * The newest `perParent` visible comments of each post (or replies of each comment), in one
   * query (a window function, on both engines).
   */
  async commentsPreview(
    by: "postId" | "parentId",
    parentIds: readonly string[],
    perParent: number,
    requesterId: string | null,
  ): Promise<CommentRow[]> {
    if (parentIds.length === 0 || perParent <= 0) return [];
    const rows = await Q.commentsPreview(db, { by, anon: requesterId === null }, [
      parentIds,
      requesterId ?? "",
      perParent,
    ]);
    return rows.map(({ rn: _rn, ...row }) => row as CommentRow);
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

  // ------------------------------------------------------------------ likes
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

  async marksOf(table: "saves" | "pins" | "postFollows", userId: string, postIds: readonly string[]) {
    if (postIds.length === 0) return new Set<string>();
    const rows = await db
      .selectFrom(table)
      .select("postId")
      .where("userId", "=", userId)
      .where("postId", "in", postIds)
      .execute();
    return new Set(rows.map((r) => r.postId));
  },

  async postFollowers(postId: string): Promise<string[]> {
    const rows = await db.selectFrom("postFollows").select("userId").where("postId", "=", postId).execute();
    return rows.map((r) => r.userId);
  },

  // ------------------------------------------------------------------ social graph
  async follow(followerId: string, followeeId: string, at: string): Promise<boolean> {
    const r = await db
      .insertInto("userFollows")
      .values({ followerId, followeeId, createdAt: at })
      .onConflict((oc) => oc.columns(["followerId", "followeeId"]).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  async unfollow(followerId: string, followeeId: string): Promise<void> {
    await db
      .deleteFrom("userFollows")
      .where("followerId", "=", followerId)
      .where("followeeId", "=", followeeId)
      .execute();
  },

  async followees(followerId: string, among: readonly string[]): Promise<Set<string>> {
    if (among.length === 0) return new Set();
    const rows = await db
      .selectFrom("userFollows")
      .select("followeeId")
      .where("followerId", "=", followerId)
      .where("followeeId", "in", among)
      .execute();
    return new Set(rows.map((r) => r.followeeId));
  },

  async block(blockerId: string, blockedId: string, at: string): Promise<void> {
    await db
      .insertInto("userBlocks")
      .values({ blockerId, blockedId, createdAt: at })
      .onConflict((oc) => oc.columns(["blockerId", "blockedId"]).doNothing())
      .execute();
  },

  async unblock(blockerId: string, blockedId: string): Promise<void> {
    await db.deleteFrom("userBlocks").where("blockerId", "=", blockerId).where("blockedId", "=", blockedId).execute();
  },

  /** Block relations between the requester and `others`, both directions. */
  async blocksWith(requesterId: string, others: readonly string[]) {
    const blocking = new Set<string>();
    const blockedBy = new Set<string>();
    if (others.length === 0) return { blocking, blockedBy };
    const rows = await Q.blocksWith(db, null, [requesterId, others]);
    for (const r of rows) {
      if (r.blockerId === requesterId) blocking.add(r.blockedId);
      else blockedBy.add(r.blockerId);
    }
    return { blocking, blockedBy };
  },
});

function notBlockedWith(
  eb: ExpressionBuilder<Database, "comments">,
  requesterId: string,
  ownerRef: "comments.ownerId",
) {
  return eb.and([
    eb.not(
      eb.exists(
        eb
          .selectFrom("userBlocks")
          .select("userBlocks.blockerId")
          .where("userBlocks.blockerId", "=", requesterId)
          .whereRef("userBlocks.blockedId", "=", ownerRef),
      ),
    ),
    eb.not(
      eb.exists(
        eb
          .selectFrom("userBlocks")
          .select("userBlocks.blockerId")
          .whereRef("userBlocks.blockerId", "=", ownerRef)
          .where("userBlocks.blockedId", "=", requesterId),
      ),
    ),
  ]);
}

export type SocialRepository = ReturnType<typeof socialRepository>;

/** The value a feed source filters on, and the trending instruments of for-you. */
function sourceKey(source: FeedSource): { id: string | number; instruments: readonly number[] } {
  switch (source.kind) {
    case "all":
      return { id: "", instruments: [] };
    case "owner":
      return { id: source.ownerId, instruments: [] };
    case "instrument":
      return { id: source.instrumentId, instruments: [] };
    case "following":
      return { id: source.followerId, instruments: [] };
    case "saved":
    case "pinned":
      return { id: source.userId, instruments: [] };
    case "forYou":
      return { id: source.userId, instruments: source.instrumentIds };
  }
}

type Ids = readonly string[];

/**
 * The read queries of the discussion path, compiled once per shape (infra/db/prepared.ts): their
 * values are bound, never computed on, inside the builders.
 */
const Q = {
  postsByIds: prepared(
    (db, _: null, [ids]: readonly [Ids]) => db.selectFrom("posts").selectAll().where("id", "in", ids),
    () => "",
  ),

  findPostFor: prepared(
    (db, anon: boolean, [postId, me]: readonly [string, string]) =>
      db
        .selectFrom("posts")
        .innerJoin("users as owner", "owner.id", "posts.ownerId")
        .selectAll("posts")
        .select((eb) =>
          eb
            .case()
            .when(visible(eb, anon ? null : me))
            .then(1)
            .else(0)
            .end()
            .as("visible"),
        )
        .where("posts.id", "=", postId),
    (anon) => String(anon),
  ),

  feedPage: prepared(
    (
      db,
      shape: { kind: FeedSource["kind"]; anon: boolean; instruments: number },
      [me, id, instrumentIds, limit, offset]: readonly [string, string | number, readonly number[], number, number],
    ) => {
      let q = db
        .selectFrom("posts")
        .innerJoin("users as owner", "owner.id", "posts.ownerId")
        .selectAll("posts")
        .where((eb) => visible(eb, shape.anon ? null : me));
      switch (shape.kind) {
        case "all":
          q = q.orderBy("posts.seq", "desc");
          break;
        case "owner":
          q = q.where("posts.ownerId", "=", id as string).orderBy("posts.seq", "desc");
          break;
        case "instrument":
          q = q
            .innerJoin("postTags", "postTags.postId", "posts.id")
            .where("postTags.instrumentId", "=", id as number)
            .orderBy("postTags.postSeq", "desc");
          break;
        case "following":
          q = q
            .where("posts.ownerId", "in", (eb) =>
              eb
                .selectFrom("userFollows")
                .select("followeeId")
                .where("followerId", "=", id as string),
            )
            .orderBy("posts.seq", "desc");
          break;
        case "saved":
          q = q
            .innerJoin("saves", "saves.postId", "posts.id")
            .where("saves.userId", "=", id as string)
            .orderBy("saves.seq", "desc");
          break;
        case "pinned":
          q = q
            .innerJoin("pins", "pins.postId", "posts.id")
            .where("pins.userId", "=", id as string)
            .where("posts.ownerId", "=", id as string)
            .orderBy("pins.seq", "desc");
          break;
        case "forYou":
          q = q
            .where("posts.ownerId", "!=", id as string)
            .where((eb) =>
              eb.or([
                eb(
                  "posts.ownerId",
                  "in",
                  eb
                    .selectFrom("userFollows")
                    .select("followeeId")
                    .where("followerId", "=", id as string),
                ),
                ...(shape.instruments > 0
                  ? [
                      eb.exists(
                        eb
                          .selectFrom("postTags")
                          .select("postTags.postId")
                          .whereRef("postTags.postId", "=", "posts.id")
                          .where("postTags.instrumentId", "in", instrumentIds),
                      ),
                    ]
                  : []),
              ]),
            )
            .orderBy("posts.seq", "desc");
          break;
      }
      return q.limit(limit).offset(offset);
    },
    (shape) => `${shape.kind}.${shape.anon}.${shape.instruments > 0}`,
  ),

  tagsFor: prepared(
    (db, _: null, [postIds]: readonly [Ids]) =>
      db.selectFrom("postTags").selectAll().where("postId", "in", postIds).orderBy("position"),
    () => "",
  ),

  tagsAndMentions: prepared(
    (db, _: null, [postIds, entityIds]: readonly [Ids, Ids]) =>
      db
        .selectFrom("postTags")
        .select([
          sql<"tag" | "mention">`'tag'`.as("kind"),
          "postId as entityId",
          sql<string>`cast(instrument_id as text)`.as("ref"),
          sql<number>`0`.as("isDirect"),
          "position",
        ])
        .where("postId", "in", postIds)
        .unionAll(
          db
            .selectFrom("mentions")
            .select([sql<"tag" | "mention">`'mention'`.as("kind"), "entityId", "userId as ref", "isDirect", "position"])
            .where("entityId", "in", entityIds),
        )
        .orderBy("position"),
    () => "",
  ),

  mentionsFor: prepared(
    (db, _: null, [entityIds]: readonly [Ids]) =>
      db.selectFrom("mentions").selectAll().where("entityId", "in", entityIds).orderBy("position"),
    () => "",
  ),

  postStats: prepared(
    (db, _: null, [postIds, me]: readonly [Ids, string]) =>
      db
        .selectFrom("posts as p")
        .select((eb) => [
          "p.id",
          eb
            .selectFrom("comments as c")
            .select(eb.fn.countAll<number | string>().as("n"))
            .whereRef("c.postId", "=", "p.id")
            .where("c.isDeleted", "=", 0)
            .where("c.isSpam", "=", 0)
            .as("commentsAll"),
          eb
            .selectFrom("comments as c")
            .select(eb.fn.countAll<number | string>().as("n"))
            .whereRef("c.postId", "=", "p.id")
            .where("c.parentId", "is", null)
            .where("c.isDeleted", "=", 0)
            .where("c.isSpam", "=", 0)
            .as("commentsTop"),
          eb
            .selectFrom("posts as s")
            .select(eb.fn.countAll<number | string>().as("n"))
            .where((w) =>
              w.or([w("s.sharedOriginPostId", "=", w.ref("p.id")), w("s.sharedPostId", "=", w.ref("p.id"))]),
            )
            .where("s.isDeleted", "=", 0)
            .as("shares"),
          flag(
            eb,
            eb
              .selectFrom("likes as m")
              .select("m.entityId")
              .whereRef("m.entityId", "=", "p.id")
              .where("m.userId", "=", me),
          ).as("liked"),
          flag(
            eb,
            eb.selectFrom("saves as m").select("m.postId").whereRef("m.postId", "=", "p.id").where("m.userId", "=", me),
          ).as("saved"),
          flag(
            eb,
            eb.selectFrom("pins as m").select("m.postId").whereRef("m.postId", "=", "p.id").where("m.userId", "=", me),
          ).as("pinned"),
          flag(
            eb,
            eb
              .selectFrom("postFollows as m")
              .select("m.postId")
              .whereRef("m.postId", "=", "p.id")
              .where("m.userId", "=", me),
          ).as("followed"),
        ])
        .where("p.id", "in", postIds),
    () => "",
  ),

  pollsWithOptions: prepared(
    (db, _: null, [postIds, userId]: readonly [Ids, string]) =>
      db
        .selectFrom("polls")
        .innerJoin("pollOptions", "pollOptions.pollId", "polls.id")
        .leftJoin("pollVotes", "pollVotes.optionId", "pollOptions.id")
        .select((eb) => [
          "polls.postId",
          "polls.title",
          "pollOptions.id",
          "pollOptions.pollId",
          "pollOptions.idx",
          "pollOptions.text",
          eb.fn.count<number | string>("pollVotes.userId").as("votes"),
          eb.fn.max<number | string>(eb.case().when("pollVotes.userId", "=", userId).then(1).else(0).end()).as("mine"),
        ])
        .where("polls.postId", "in", postIds)
        .groupBy([
          "polls.postId",
          "polls.title",
          "pollOptions.id",
          "pollOptions.pollId",
          "pollOptions.idx",
          "pollOptions.text",
        ])
        .orderBy("pollOptions.idx"),
    () => "",
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

  commentsPreview: prepared(
    (
      db,
      shape: { by: "postId" | "parentId"; anon: boolean },
      [parentIds, me, perParent]: readonly [Ids, string, number],
    ) => {
      const column = shape.by === "postId" ? "postId" : "parentId";
      const inner = db
        .selectFrom("comments")
        .selectAll()
        .select((eb) =>
          eb.fn
            .agg<number>("row_number")
            .over((o) => o.partitionBy(column).orderBy("seq", "desc"))
            .as("rn"),
        )
        .where(column, "in", parentIds)
        .where("isDeleted", "=", 0)
        .where("isSpam", "=", 0)
        .$if(shape.by === "postId", (q) => q.where("parentId", "is", null))
        .$if(!shape.anon, (q) => q.where((eb) => notBlockedWith(eb, me, "comments.ownerId")));
      return db.selectFrom(inner.as("c")).selectAll().where("c.rn", "<=", perParent).orderBy("c.seq", "desc");
    },
    (shape) => `${shape.by}.${shape.anon}`,
  ),

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

  blocksWith: prepared(
    (db, _: null, [requesterId, others]: readonly [string, Ids]) =>
      db
        .selectFrom("userBlocks")
        .select(["blockerId", "blockedId"])
        .where((eb) =>
          eb.or([
            eb.and([eb("blockerId", "=", requesterId), eb("blockedId", "in", others)]),
            eb.and([eb("blockedId", "=", requesterId), eb("blockerId", "in", others)]),
          ]),
        ),
    () => "",
  ),
};
