import type { Deps } from "../context.js";
import { getUserProfiles } from "../identity/user-profiles.js";
import { findInstruments } from "../market/find-instruments.js";
import { type MarketView, toMarket } from "../market/market.view.js";
import { type CommentRow, type PostRow, socialRepository } from "./social.repository.js";
import {
  type AttachmentForm,
  type Bundle,
  type CommentItemView,
  type DiscussionView,
  type PostView,
  type ReasonView,
  toCommentItem,
  toPostView,
  toReactions,
} from "./social.view.js";

/**
 * Turns post rows into the wire resources with a fixed number of queries, whatever the number
 * of posts: every relation is loaded for the whole set at once (no query per post).
 */
async function loadBundle(
  deps: Deps,
  rows: readonly PostRow[],
  requesterId: string | null,
  extraUserIds: readonly string[] = [],
  extraEntityIds: readonly string[] = [],
): Promise<Bundle> {
  const repo = socialRepository(deps.db.kysely);
  const posts = new Map(rows.map((r) => [r.id, r]));
  const missingShared = [
    ...new Set(rows.flatMap((r) => [r.sharedPostId, r.sharedOriginPostId]).filter((id): id is string => !!id)),
  ].filter((id) => !posts.has(id));
  for (const r of await repo.postsByIds(missingShared)) posts.set(r.id, r);
  const postIds = [...posts.keys()];

  const [tagRows, mentionRows, polls] = await Promise.all([
    repo.tagsFor(postIds),
    repo.mentionsFor([...postIds, ...extraEntityIds]),
    repo.pollsFor(postIds),
  ]);
  const pollIds = polls.map((p) => p.id);
  const userIds = new Set<string>(extraUserIds);
  for (const p of posts.values()) userIds.add(p.ownerId);
  for (const m of mentionRows) userIds.add(m.userId);
  const noBlocks = { blocking: new Set<string>(), blockedBy: new Set<string>() };
  const [options, users, instruments, blocks] = await Promise.all([
    repo.optionsWithVotes(pollIds, requesterId),
    getUserProfiles(deps, [...userIds]),
    findInstruments(deps, [...new Set(tagRows.map((t) => t.instrumentId))]),
    requesterId ? repo.blocksWith(requesterId, [...userIds]) : Promise.resolve(noBlocks),
  ]);
  const voteCounts = new Map(options.map((o) => [o.id, o.votes]));
  const myVotes = new Set(options.filter((o) => o.mine).map((o) => o.id));

  const markets = new Map<number, MarketView>();
  for (const [id, instrument] of instruments) markets.set(id, toMarket(instrument));
  const tags = new Map<string, number[]>();
  for (const t of tagRows) tags.set(t.postId, [...(tags.get(t.postId) ?? []), t.instrumentId]);
  const mentions = new Map<string, { userId: string; isDirect: boolean }[]>();
  for (const m of mentionRows) {
    mentions.set(m.entityId, [...(mentions.get(m.entityId) ?? []), { userId: m.userId, isDirect: m.isDirect === 1 }]);
  }
  const pollMap = new Map(polls.map((p) => [p.postId, { poll: p, options: options.filter((o) => o.pollId === p.id) }]));
  return {
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
  };
}

/** Posts alone (create, edit, share responses). */
export async function assemblePosts(
  deps: Deps,
  rows: readonly PostRow[],
  requesterId: string | null,
  form: AttachmentForm,
): Promise<PostView[]> {
  const b = await loadBundle(deps, rows, requesterId);
  return rows.map((r) => toPostView(r, b, form));
}

export interface DiscussionOptions {
  requesterId: string | null;
  /** Inline comments per post (0 = none). */
  commentsTake: number;
  /** Inline reactions per post and per comment. */
  reactionsTake: number;
  form: AttachmentForm;
  reasons?: Map<string, ReasonView | null>;
}

/** Comment items for comment rows of (possibly) several posts; a fixed number of queries. */
export async function assembleComments(
  deps: Deps,
  comments: readonly CommentRow[],
  postSeqs: Map<string, number>,
  reactionsTake: number,
  requesterId: string | null,
  bundle?: Bundle,
): Promise<CommentItemView[]> {
  if (comments.length === 0) return [];
  const repo = socialRepository(deps.db.kysely);
  const ids = comments.map((c) => c.id);
  const parentIds = [...new Set(comments.map((c) => c.parentId).filter((p): p is string => p !== null))];
  const [replyCounts, { likes, totals: likeCounts }, liked, parents] = await Promise.all([
    repo.replyCounts(ids),
    repo.likesPreview(ids, reactionsTake),
    requesterId ? repo.likedBy(requesterId, ids) : Promise.resolve(new Set<string>()),
    repo.commentsByIds(parentIds),
  ]);
  const userIds = [...comments.map((c) => c.ownerId), ...likes.map((l) => l.userId)];
  // A caller that already loaded the owners, likers and mentions passes its bundle.
  const b = bundle ?? (await loadBundle(deps, [], requesterId, userIds, ids));
  const missing = [...new Set(userIds.filter((u) => !b.users.has(u)))];
  if (missing.length > 0) {
    const [more, blocks] = await Promise.all([
      getUserProfiles(deps, missing),
      requesterId ? repo.blocksWith(requesterId, missing) : Promise.resolve({ blocking: [], blockedBy: [] }),
    ]);
    for (const [k, v] of more) b.users.set(k, v);
    for (const u of blocks.blockedBy) b.blockedBy.add(u);
    for (const u of blocks.blocking) b.blocking.add(u);
  }
  const parentSeq = new Map(parents.map((p) => [p.id, p.seq]));
  return comments.map((c) =>
    toCommentItem(c, b, {
      postSeq: postSeqs.get(c.postId) ?? 0,
      parentSeq: c.parentId ? parentSeq.get(c.parentId) : undefined,
      repliesCount: replyCounts.get(c.id) ?? 0,
      likeTotal: likeCounts.get(c.id) ?? 0,
      likes: likes.filter((l) => l.entityId === c.id),
      reactionsTake,
      isLiking: liked.has(c.id),
      requesterId,
    }),
  );
}

/** Discussions (feeds and the single post), each with counts, previews and the requester's context. */
export async function assembleDiscussions(
  deps: Deps,
  rows: readonly PostRow[],
  o: DiscussionOptions,
): Promise<DiscussionView[]> {
  if (rows.length === 0) return [];
  const repo = socialRepository(deps.db.kysely);
  const ids = rows.map((r) => r.id);
  const me = o.requesterId;
  const noMarks = {
    like: new Set<string>(),
    save: new Set<string>(),
    pin: new Set<string>(),
    follow: new Set<string>(),
  };
  const [commentCounts, shareCounts, { likes, totals: likeCounts }, comments, marks] = await Promise.all([
    repo.commentCounts(ids),
    repo.shareCounts(ids),
    repo.likesPreview(ids, o.reactionsTake),
    repo.commentsPreview("postId", ids, o.commentsTake, me),
    me ? repo.requesterMarks(me, ids) : Promise.resolve(noMarks),
  ]);
  const b = await loadBundle(
    deps,
    rows,
    me,
    [...likes.map((l) => l.userId), ...comments.map((c) => c.ownerId)],
    comments.map((c) => c.id),
  );
  const postSeqs = new Map(rows.map((r) => [r.id, r.seq]));
  const items = await assembleComments(deps, comments, postSeqs, o.reactionsTake, me, b);
  const itemsByPost = new Map<string, CommentItemView[]>();
  for (const [i, c] of comments.entries()) {
    itemsByPost.set(c.postId, [...(itemsByPost.get(c.postId) ?? []), items[i]!]);
  }

  return rows.map((r) => {
    const counts = commentCounts.get(r.id) ?? { all: 0, top: 0 };
    const discussion: DiscussionView = {
      id: r.id,
      post: toPostView(r, b, o.form),
      commentsData: { reactionPaging: { totalCount: counts.top }, comments: itemsByPost.get(r.id) ?? [] },
      emotionsData: toReactions(
        r.id,
        likeCounts.get(r.id) ?? 0,
        likes.filter((l) => l.entityId === r.id),
        o.reactionsTake,
        0,
        b,
        r.seq,
      ),
      requesterContext: {
        isOwner: me === r.ownerId,
        isFlaggingAsSpam: false,
        isSubscribed: marks.follow.has(r.id),
        isLiking: marks.like.has(r.id),
        isSaved: marks.save.has(r.id),
        isPinned: marks.pin.has(r.id),
        isRequesterBlocking: b.blocking.has(r.ownerId),
        isInteractionRestricted: b.blockedBy.has(r.ownerId),
        isFollowing: marks.follow.has(r.id),
      },
      summary: { totalCommentsAndReplies: counts.all, sharedCount: shareCounts.get(r.id) ?? 0 },
    };
    if (o.reasons) discussion.reason = o.reasons.get(r.id) ?? null;
    return discussion;
  });
}
