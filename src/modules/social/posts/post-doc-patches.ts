import type { PostCommentAdded, PostLikeAdded } from "../../../core/events.js";
import type { UserProfile } from "../../identity/user-profiles.js";
import type { Patcher } from "../shared/read-cache.js";
import { ownersIn, spliced } from "../shared/shared-documents.js";
import {
  type DiscussionView,
  emotionOf,
  newCommentItem,
  type ReactionsView,
  reactionsOf,
} from "../shared/social.view.js";
import { POST_REACTIONS_TAKE } from "./get-post.js";
import { type DocRanges, keyOf, type PostDoc, type PostDocTakes, postDocSize, type Range } from "./post-doc.js";

/*
 * A post's kept documents patched by a like or a plain top-level comment instead of being built
 * again (docs/decisions/0198). A patch rewrites only the parts the write changed (the likes
 * preview; the comments preview and the summary), each serialized as the route serializes it,
 * and keeps every other byte. It applies only to a document that reflects every change before
 * this one (the read cache checks that) and that cannot already count this write: the new like or
 * comment must be newer than the newest one shown. Anything else leaves the document to be rebuilt.
 */

/** The route's serializers of the parts a patch rewrites (the same schemas give the same bytes). */
export interface PartSerializers {
  reactions: (view: ReactionsView) => string;
  comments: (view: DiscussionView["commentsData"]) => string;
  summary: (view: DiscussionView["summary"]) => string;
}

const NO_OWNERS: ReadonlyMap<string, string> = new Map();

/** Patches a post's kept documents, for every take noted, on its new like or top-level comment. */
export function postDocPatcher(takes: PostDocTakes, serializers: PartSerializers): Patcher {
  return (event, keptValue) => {
    const { like, comment } = event;
    if ((like === undefined) === (comment === undefined)) return [];
    const postId = like?.postId ?? comment!.postId;
    const out: { key: string; value: PostDoc; size: number }[] = [];
    for (const take of takes.of(postId)) {
      const key = keyOf(postId, take);
      const found = keptValue(key) as PostDoc | undefined;
      if (!found?.ranges) continue;
      const value = like
        ? withLike(found, found.ranges, like, serializers)
        : withComment(found, found.ranges, comment!, take, serializers);
      if (value) out.push({ key, value, size: postDocSize(value.doc, postId) });
    }
    return out;
  };
}

function withLike(found: PostDoc, ranges: DocRanges, like: PostLikeAdded, s: PartSerializers): PostDoc | undefined {
  const { paging, emotions } = (JSON.parse(textOf(found, ranges.likes)) as ReactionsView).like;
  const newest = emotions[0];
  if (newest ? Number(newest.obsoleteId) >= like.seq : paging.totalCount > 0) return undefined;
  const row = { ...like, entityId: like.postId, entityType: "Post" };
  const shown = [emotionOf(row, like.owner as UserProfile, found.seq), ...emotions].slice(0, POST_REACTIONS_TAKE);
  const view = reactionsOf(like.postId, paging.totalCount + 1, shown, POST_REACTIONS_TAKE, 0);
  return replaced(found, ranges, "likes", s.reactions(view), NO_OWNERS);
}

function withComment(
  found: PostDoc,
  ranges: DocRanges,
  comment: PostCommentAdded,
  take: number,
  s: PartSerializers,
): PostDoc | undefined {
  const data = JSON.parse(textOf(found, ranges.comments)) as DiscussionView["commentsData"];
  const total = data.reactionPaging.totalCount;
  const newest = data.comments[0];
  // With no comment shown (take 0, or none yet), only a post with no comment is surely without it.
  if (newest ? Number(newest.entity.obsoleteId) >= comment.row.seq : total > 0) return undefined;
  const { row } = comment;
  const at = { postSeq: comment.postSeq, parentSeq: undefined };
  const item = newCommentItem(row, comment.owner as UserProfile, at, POST_REACTIONS_TAKE, null);
  const view = { reactionPaging: { totalCount: total + 1 }, comments: [item, ...data.comments].slice(0, take) };
  const owners = ownersIn(found.doc, ...ranges.comments);
  owners.set(row.id, row.ownerId);
  const withItem = replaced(found, ranges, "comments", s.comments(view), owners, view);
  if (!withItem?.ranges) return undefined;
  const summary = JSON.parse(textOf(withItem, withItem.ranges.summary)) as DiscussionView["summary"];
  const counted = { ...summary, totalCommentsAndReplies: summary.totalCommentsAndReplies + 1 };
  return replaced(withItem, withItem.ranges, "summary", s.summary(counted), NO_OWNERS);
}

const textOf = (found: PostDoc, [at, end]: Range) => found.doc.bytes.toString("utf8", at, end);

/** `found` with its part `name` replaced by `text`; the parts after it move with the bytes. */
function replaced(
  found: PostDoc,
  ranges: DocRanges,
  name: keyof DocRanges,
  text: string,
  owners: ReadonlyMap<string, string>,
  view?: unknown,
): PostDoc | undefined {
  const [at, end] = ranges[name];
  const doc = spliced(found.doc, at, end, text, owners, view);
  if (!doc) return undefined;
  const shift = doc.bytes.length - found.doc.bytes.length;
  const moved = ([a, e]: Range): Range => (a >= end ? [a + shift, e + shift] : [a, e]);
  const next: DocRanges = {
    comments: moved(ranges.comments),
    likes: moved(ranges.likes),
    summary: moved(ranges.summary),
  };
  next[name] = [at, end + shift];
  return { ...found, doc, ranges: next };
}
