import type { Deps } from "../../context.js";
import { getUserProfiles } from "../../identity/user-profiles.js";
import { findInstruments } from "../../market/find-instruments.js";
import { type MarketView, toMarket } from "../../market/market.view.js";
import { type SocialRepository, socialRepository } from "./social.repository.js";
import type { CommentRow, LikeRow, PostRow, PostStats } from "./social.rows.js";
import {
  type AttachmentForm,
  type Bundle,
  type CommentItemView,
  type DiscussionsOf,
  type DiscussionView,
  type PostOf,
  type ReasonView,
  toCommentItem,
  toPostView,
  toReactions,
} from "./social.view.js";

/*
 * Turns rows into the wire resources with a small, fixed number of queries whatever the number of
 * posts (docs/decisions/0078, 0079): every relation is loaded for the whole set at once, in at most
 * three rounds of independent queries run side by side:
 *   1. the page's own figures (counts and requester flags, one query), its inline comments, shared posts;
 *      then, only when there are comments, the preview of their first replies (one query for all);
 *   2. likes of posts and comments (one window query), tags and mentions (one query), polls,
 *      comment figures;
 *   3. the users all of these refer to, and the blocks between them and the requester.
 */

interface Relations {
  bundle: Bundle;
  likes: LikeRow[];
  likeTotals: Map<string, number>;
  commentStats: Map<string, { replies: number; liked: boolean }>;
  parentSeqs: Map<string, number>;
}

/** The posts a share refers to that are not among the rows (one query, none without shares). */
function sharedRowsOf(repo: SocialRepository, rows: readonly PostRow[]): Promise<PostRow[]> {
  const have = new Set(rows.map((r) => r.id));
  const missing = [
    ...new Set(rows.flatMap((r) => [r.sharedPostId, r.sharedOriginPostId]).filter((id): id is string => !!id)),
  ].filter((id) => !have.has(id));
  return repo.postsByIds(missing);
}

const noLikes = { likes: [] as LikeRow[], totals: new Map<string, number>() };

async function loadRelations(
  deps: Deps,
  repo: SocialRepository,
  rows: readonly PostRow[],
  shared: readonly PostRow[],
  comments: readonly CommentRow[],
  requesterId: string | null,
  /** Entities whose first `reactionsTake` likes are shown (0: none). */
  likesOf: readonly string[],
  reactionsTake: number,
): Promise<Relations> {
  const posts = new Map<string, PostRow>();
  for (const r of rows) posts.set(r.id, r);
  for (const r of shared) posts.set(r.id, r);
  const postIds = [...posts.keys()];
  const commentIds = comments.map((c) => c.id);
  const inHand = new Map(comments.map((c) => [c.id, c.seq]));
  const parentIds = [
    ...new Set(comments.map((c) => c.parentId).filter((p): p is string => p !== null && !inHand.has(p))),
  ];
  // Only polls have a poll row: most pages pay no query for them.
  const pollPostIds = [...posts.values()].filter((p) => p.type === "Poll").map((p) => p.id);

  const [{ likes, totals }, { tags: tagRows, mentions: mentionRows }, polls, commentStats, parents] = await Promise.all(
    [
      likesOf.length > 0 ? repo.likesPreview(likesOf, reactionsTake) : noLikes,
      repo.tagsAndMentions(postIds, [...postIds, ...commentIds]),
      repo.pollsWithOptions(pollPostIds, requesterId),
      repo.commentStats(commentIds, requesterId),
      repo.commentsByIds(parentIds),
    ],
  );

  const userIds = new Set<string>();
  for (const p of posts.values()) userIds.add(p.ownerId);
  for (const c of comments) userIds.add(c.ownerId);
  for (const l of likes) userIds.add(l.userId);
  for (const m of mentionRows) userIds.add(m.userId);
  const noBlocks = { blocking: new Set<string>(), blockedBy: new Set<string>() };
  const [users, instruments, blocks] = await Promise.all([
    getUserProfiles(deps, [...userIds]),
    findInstruments(deps, [...new Set(tagRows.map((t) => t.instrumentId))]),
    requesterId ? repo.blocksWith(requesterId, [...userIds]) : Promise.resolve(noBlocks),
  ]);

  const markets = new Map<number, MarketView>();
  for (const [id, instrument] of instruments) markets.set(id, toMarket(instrument));
  const tags = new Map<string, number[]>();
  for (const t of tagRows) {
    const list = tags.get(t.postId);
    if (list) list.push(t.instrumentId);
    else tags.set(t.postId, [t.instrumentId]);
  }
  const mentions = new Map<string, { userId: string; isDirect: boolean }[]>();
  for (const m of mentionRows) {
    const entry = { userId: m.userId, isDirect: m.isDirect === 1 };
    const list = mentions.get(m.entityId);
    if (list) list.push(entry);
    else mentions.set(m.entityId, [entry]);
  }
  const voteCounts = new Map<number, number>();
  const myVotes = new Set<number>();
  const pollMap: Bundle["polls"] = new Map();
  for (const { poll, options } of polls) {
    pollMap.set(poll.postId, { poll, options });
    for (const o of options) {
      voteCounts.set(o.id, o.votes);
      if (o.mine) myVotes.add(o.id);
    }
  }
  return {
    bundle: {
      users,
      blockedBy: blocks.blockedBy,
      blocking: blocks.blocking,
      markets,
      tags,
      mentions,
      polls: pollMap,
      voteCounts,
      myVotes,
      posts,
    },
    likes,
    likeTotals: totals,
    commentStats,
    parentSeqs: new Map([...inHand, ...parents.map((p) => [p.id, p.seq] as const)]),
  };
}

/** Likes grouped by entity, keeping their order (newest first). */
function likesByEntity(likes: readonly LikeRow[]): Map<string, LikeRow[]> {
  const out = new Map<string, LikeRow[]>();
  for (const l of likes) {
    const list = out.get(l.entityId);
    if (list) list.push(l);
    else out.set(l.entityId, [l]);
  }
  return out;
}

/** Replies previewed under each top-level comment, oldest first (docs/decisions/0076). */
export const REPLIES_PREVIEW = 3;

/** The first replies of the top-level comments among `comments`: one query for all, none without any. */
function repliesPreviewOf(
  repo: SocialRepository,
  comments: readonly CommentRow[],
  requesterId: string | null,
): Promise<CommentRow[]> {
  const topIds = comments.filter((c) => c.parentId === null).map((c) => c.id);
  return repo.commentsPreview("parentId", topIds, REPLIES_PREVIEW, requesterId, "asc");
}

/** Items of `rows` (comments then their previewed replies) with each reply nested under its comment. */
function nestReplies(rows: readonly CommentRow[], items: CommentItemView[], shown: number): CommentItemView[] {
  const top = items.slice(0, shown);
  const byId = new Map(top.map((item) => [item.entity.id, item]));
  for (let i = shown; i < rows.length; i++) byId.get(rows[i]!.parentId ?? "")?.replies.push(items[i]!);
  return top;
}

function commentItems(
  comments: readonly CommentRow[],
  rel: Relations,
  likes: Map<string, LikeRow[]>,
  postSeqs: Map<string, number>,
  reactionsTake: number,
  requesterId: string | null,
): CommentItemView[] {
  return comments.map((c) => {
    const stats = rel.commentStats.get(c.id);
    return toCommentItem(c, rel.bundle, {
      postSeq: postSeqs.get(c.postId) ?? 0,
      parentSeq: c.parentId ? rel.parentSeqs.get(c.parentId) : undefined,
      repliesCount: stats?.replies ?? 0,
      likeTotal: rel.likeTotals.get(c.id) ?? 0,
      likes: likes.get(c.id) ?? [],
      reactionsTake,
      isLiking: stats?.liked ?? false,
      requesterId,
    });
  });
}

/** Posts alone (create, edit, share responses). */
export async function assemblePosts<F extends AttachmentForm>(
  deps: Deps,
  rows: readonly PostRow[],
  requesterId: string | null,
  form: F,
): Promise<PostOf<F>[]> {
  const repo = socialRepository(deps.db.kysely);
  const shared = await sharedRowsOf(repo, rows);
  const rel = await loadRelations(deps, repo, rows, shared, [], requesterId, [], 0);
  return rows.map((r) => toPostView(r, rel.bundle, form));
}

export interface DiscussionOptions<F extends AttachmentForm> {
  requesterId: string | null;
  /** Inline comments per post (0 = none). */
  commentsTake: number;
  /** Nest the first replies under each inline comment (default true; feeds: false, one query less). */
  withReplies?: boolean;
  /** Inline reactions per post and per comment. */
  reactionsTake: number;
  form: F;
  reasons?: Map<string, ReasonView | null>;
  /** Filled with the owner of each post and inline comment shown (shared documents need them). */
  owners?: Map<string, string>;
}

/** Comment items for comment rows of (possibly) several posts; a fixed number of queries. */
export async function assembleComments(
  deps: Deps,
  comments: readonly CommentRow[],
  postSeqs: Map<string, number>,
  reactionsTake: number,
  requesterId: string | null,
  /** Nest the first replies of top-level comments (comment lists), one more query. */
  withReplies = false,
): Promise<CommentItemView[]> {
  if (comments.length === 0) return [];
  const repo = socialRepository(deps.db.kysely);
  const replies = withReplies ? await repliesPreviewOf(repo, comments, requesterId) : [];
  const all = [...comments, ...replies];
  const ids = all.map((c) => c.id);
  const rel = await loadRelations(deps, repo, [], [], all, requesterId, ids, reactionsTake);
  const items = commentItems(all, rel, likesByEntity(rel.likes), postSeqs, reactionsTake, requesterId);
  return nestReplies(all, items, comments.length);
}

const NO_STATS: PostStats = {
  commentsAll: 0,
  commentsTop: 0,
  shares: 0,
  liked: false,
  saved: false,
  pinned: false,
  followed: false,
};

/** Discussions (feeds and the single post), each with counts, previews and the requester's context. */
export async function assembleDiscussions<F extends AttachmentForm>(
  deps: Deps,
  rows: readonly PostRow[],
  o: DiscussionOptions<F>,
): Promise<DiscussionsOf<F>> {
  if (rows.length === 0) return [] as DiscussionsOf<F>;
  const repo = socialRepository(deps.db.kysely);
  const ids = rows.map((r) => r.id);
  const me = o.requesterId;
  const [stats, shared] = await Promise.all([repo.postStats(ids, me), sharedRowsOf(repo, rows)]);
  // Each post's comment count says how its preview is read: not at all, in a window, or by its index.
  const sizes = new Map([...stats].map(([id, s]) => [id, s.commentsTop]));
  const comments = await repo.commentsPreview("postId", ids, o.commentsTake, me, "desc", sizes);
  const replies = o.withReplies === false ? [] : await repliesPreviewOf(repo, comments, me);
  const all = [...comments, ...replies];
  const rel = await loadRelations(
    deps,
    repo,
    rows,
    shared,
    all,
    me,
    [...ids, ...all.map((c) => c.id)],
    o.reactionsTake,
  );
  const b = rel.bundle;
  if (o.owners) for (const e of [...rows, ...all]) o.owners.set(e.id, e.ownerId);
  const likes = likesByEntity(rel.likes);
  const postSeqs = new Map(rows.map((r) => [r.id, r.seq]));
  const items = nestReplies(all, commentItems(all, rel, likes, postSeqs, o.reactionsTake, me), comments.length);
  const itemsByPost = new Map<string, CommentItemView[]>();
  for (const [i, c] of comments.entries()) {
    const list = itemsByPost.get(c.postId);
    if (list) list.push(items[i]!);
    else itemsByPost.set(c.postId, [items[i]!]);
  }

  const discussions = rows.map((r) => {
    const s = stats.get(r.id) ?? NO_STATS;
    // The two forms' discussions differ in their post alone.
    const discussion: Omit<DiscussionView, "post"> & { post: PostOf<F> } = {
      id: r.id,
      post: toPostView(r, b, o.form),
      commentsData: { reactionPaging: { totalCount: s.commentsTop }, comments: itemsByPost.get(r.id) ?? [] },
      emotionsData: toReactions(
        r.id,
        rel.likeTotals.get(r.id) ?? 0,
        likes.get(r.id) ?? [],
        o.reactionsTake,
        0,
        b,
        r.seq,
      ),
      requesterContext: {
        isOwner: me === r.ownerId,
        isFlaggingAsSpam: false,
        isSubscribed: s.followed,
        isLiking: s.liked,
        isSaved: s.saved,
        isPinned: s.pinned,
        isRequesterBlocking: b.blocking.has(r.ownerId),
        isInteractionRestricted: b.blockedBy.has(r.ownerId),
        isFollowing: s.followed,
      },
      summary: { totalCommentsAndReplies: s.commentsAll, sharedCount: s.shares },
    };
    if (o.reasons) discussion.reason = o.reasons.get(r.id) ?? null;
    return discussion;
  });
  return discussions as DiscussionsOf<F>;
}
