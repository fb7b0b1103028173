import type { PostCommentAdded, PostLikeAdded } from "../../../core/events.js";
import type { UserProfile } from "../../identity/user-profiles.js";
import { byteOffsets, listAt, type TextRange, valueAt } from "../shared/json-text.js";
import type { Patcher } from "../shared/read-cache.js";
import { type Piece, spliced } from "../shared/shared-documents.js";
import {
  type DiscussionView,
  emotionOf,
  newCommentItem,
  type ReactionsView,
  reactionsPaging,
} from "../shared/social.view.js";
import { POST_REACTIONS_TAKE } from "./get-post.js";
import { type DocRanges, keyOf, type PostDoc, type PostDocTakes, postDocSize, type Range } from "./post-doc.js";

/*
 * A post's kept documents patched by a like or a plain top-level comment instead of being built
 * again (docs/decisions/0198). A patch rewrites only the parts the write changed (the likes
 * preview; the comments preview and the summary) and keeps every other byte. In a preview, the new
 * item is serialized as the route serializes it, alone, and the items kept are the old bytes,
 * copied with their slots: the preview is never parsed whole (0209). It applies only to a document that reflects every change before
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

/**
 * The list at `path` in a part's text split: the part without its items (to parse), and the items'
 * char ranges (each read alone, when needed); null when the text is not laid out so.
 */
function splitList(text: string, path: readonly string[]): { bare: string; items: TextRange[] } | null {
  const list = listAt(text, path);
  if (!list) return null;
  const open = list.items[0]?.[0] ?? list.end - 1;
  return { bare: `${text.slice(0, open)}${text.slice(list.end - 1)}`, items: list.items };
}

/**
 * A part made anew: `head`, the serialization of the part with one item only (the new one, in the
 * list at `path`; `view`: the value serialized), then the `kept` items of the old part, copied as
 * they are with their slots (docs/decisions/0209). Undefined when `head` is not laid out so.
 */
function withItemFirst(
  head: string,
  path: readonly string[],
  view: unknown,
  old: { text: string; at: number },
  kept: readonly TextRange[],
): Piece[] | undefined {
  const items = listAt(head, path)?.items;
  if (items?.length !== 1) return undefined;
  const itemEnd = items[0]![1];
  const first = kept[0];
  const last = kept.at(-1);
  if (!first || !last) return [{ text: head, view }];
  const [from, to] = byteOffsets(old.text, [first[0], last[1]]);
  return [
    { text: head.slice(0, itemEnd), view },
    { text: "," },
    { from: old.at + from!, to: old.at + to! },
    { text: head.slice(itemEnd) },
  ];
}

const EMOTIONS = ["like", "emotions"];
const COMMENTS = ["comments"];

function withLike(found: PostDoc, ranges: DocRanges, like: PostLikeAdded, s: PartSerializers): PostDoc | undefined {
  const text = textOf(found, ranges.likes);
  const list = splitList(text, EMOTIONS);
  if (!list) return undefined;
  const { paging } = (JSON.parse(list.bare) as ReactionsView).like;
  const { items } = list;
  // The newest shown, the first item: only its `obsoleteId` is read.
  const newest = items[0] && valueAt(text, ["obsoleteId"], items[0][0]);
  if (newest !== undefined ? Number(newest) >= like.seq : paging.totalCount > 0) return undefined;
  const row = { ...like, entityId: like.postId, entityType: "Post" };
  const emotion = emotionOf(row, like.owner as UserProfile, found.seq);
  const kept = items.slice(0, POST_REACTIONS_TAKE - 1);
  const last = kept.at(-1);
  // The last shown stays the last unless the full preview drops its oldest.
  const lastId = !last ? emotion.id : kept.length === items.length ? paging.offsetEntityId : lastIdOf(text, last);
  if (lastId === undefined) return undefined;
  const total = paging.totalCount + 1;
  const view = {
    like: {
      paging: reactionsPaging(like.postId, total, kept.length + 1, lastId, POST_REACTIONS_TAKE),
      emotions: [emotion],
    },
  };
  const pieces = withItemFirst(s.reactions(view), EMOTIONS, view, { text, at: ranges.likes[0] }, kept);
  return pieces && replaced(found, ranges, "likes", pieces, NO_OWNERS);
}

/** The `id` of the emotion at `item`; undefined when it has none (the patch then gives up). */
function lastIdOf(text: string, [at]: TextRange): string | undefined {
  const id = valueAt(text, ["id"], at);
  return typeof id === "string" ? id : undefined;
}

function withComment(
  found: PostDoc,
  ranges: DocRanges,
  comment: PostCommentAdded,
  take: number,
  s: PartSerializers,
): PostDoc | undefined {
  const text = textOf(found, ranges.comments);
  const list = splitList(text, COMMENTS);
  if (!list) return undefined;
  const total = (JSON.parse(list.bare) as DiscussionView["commentsData"]).reactionPaging.totalCount;
  const { items } = list;
  const newest = items[0] && valueAt(text, ["entity", "obsoleteId"], items[0][0]);
  // With no comment shown (take 0, or none yet), only a post with no comment is surely without it.
  if (newest !== undefined ? Number(newest) >= comment.row.seq : total > 0) return undefined;
  const { row } = comment;
  const at = { postSeq: comment.postSeq, parentSeq: undefined };
  const item = newCommentItem(row, comment.owner as UserProfile, at, POST_REACTIONS_TAKE, null);
  const view = { reactionPaging: { totalCount: total + 1 }, comments: take > 0 ? [item] : [] };
  const head = s.comments(view);
  const pieces =
    take > 0
      ? withItemFirst(head, COMMENTS, view, { text, at: ranges.comments[0] }, items.slice(0, take - 1))
      : [{ text: head, view }];
  const owners = new Map([[row.id, row.ownerId]]);
  const withItem = pieces && replaced(found, ranges, "comments", pieces, owners);
  if (!withItem?.ranges) return undefined;
  const summary = JSON.parse(textOf(withItem, withItem.ranges.summary)) as DiscussionView["summary"];
  const counted = { ...summary, totalCommentsAndReplies: summary.totalCommentsAndReplies + 1 };
  return replaced(withItem, withItem.ranges, "summary", [{ text: s.summary(counted) }], NO_OWNERS);
}

const textOf = (found: PostDoc, [at, end]: Range) => found.doc.bytes.toString("utf8", at, end);

/** `found` with its part `name` replaced by `pieces`; the parts after it move with the bytes. */
function replaced(
  found: PostDoc,
  ranges: DocRanges,
  name: keyof DocRanges,
  pieces: readonly Piece[],
  owners: ReadonlyMap<string, string>,
): PostDoc | undefined {
  const [at, end] = ranges[name];
  const doc = spliced(found.doc, at, end, pieces, owners);
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
