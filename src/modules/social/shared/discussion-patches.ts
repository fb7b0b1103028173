import type { PostCommentAdded, PostLikeAdded } from "../../../core/events.js";
import type { UserProfile } from "../../identity/user-profiles.js";
import { byteOffsets, lastValueRange, listAt, type TextRange, valueAt } from "./json-text.js";
import { type Piece, type SharedDoc, spliced } from "./shared-documents.js";
import type { PartSerializers } from "./social.schemas.js";
import { type DiscussionView, emotionOf, newCommentItem, type ReactionsView, reactionsPaging } from "./social.view.js";

/*
 * A kept discussion document (a post's, 0198; a feed's, 0210) patched by its post's new like or
 * plain top-level comment instead of being built again. A patch rewrites only the parts the write
 * changed (the likes preview; the comments preview and the summary) and keeps every other byte. In
 * a preview, the new item is serialized as the route serializes it, alone, and the items kept are
 * the old bytes, copied with their slots and cut-out profiles: the preview is never parsed whole
 * (0209). It applies only to a document that reflects every change before this one (the read cache
 * checks that) and that cannot already count this write: the new like or comment must be newer
 * than the newest one shown. Anything else leaves the document to be rebuilt.
 */

/** A byte range [start, end) of a document. */
type Range = TextRange;

/** Where a discussion document's parts that writes change are (docs/decisions/0198). */
export interface DocRanges {
  /** `commentsData`: the comment count and preview. */
  comments: Range;
  /** `emotionsData`: the post's like count and preview. */
  likes: Range;
  /** `summary`: comments and replies, shares. */
  summary: Range;
}

/**
 * The ranges of a serialized discussion's own parts: each key's last occurrence is the
 * discussion's. Profiles cut out of the text leave it balanced, so a document's own bytes do too.
 */
export function rangesOf(json: string): DocRanges | null {
  const comments = lastValueRange(json, "commentsData", ',"emotionsData":');
  const likes = lastValueRange(json, "emotionsData", ',"requesterContext":');
  const summary = lastValueRange(json, "summary", "}");
  return comments && likes && summary ? { comments, likes, summary } : null;
}

const NONE: ReadonlySet<unknown> = new Set();

/** Posts whose variants are noted before the notes start afresh. */
const MAX_NOTED_POSTS = 50_000;

/**
 * The variants (a take, a form) each post's documents were built in, so that a write finds them
 * without trying every variant. A post whose variants were forgotten (the notes start afresh past
 * MAX_NOTED_POSTS) has its documents rebuilt after its next write instead of patched.
 */
export class DocVariants<T> {
  private readonly byPost = new Map<string, Set<T>>();

  note(postId: string, variant: T): void {
    const variants = this.byPost.get(postId);
    if (variants) variants.add(variant);
    else {
      if (this.byPost.size >= MAX_NOTED_POSTS) this.byPost.clear();
      this.byPost.set(postId, new Set([variant]));
    }
  }

  of(postId: string): ReadonlySet<T> {
    return this.byPost.get(postId) ?? (NONE as ReadonlySet<T>);
  }
}

/** What the document shows: its comments and reactions previews' sizes, and its post's `seq`. */
export interface Shown {
  comments: number;
  reactions: number;
  postSeq: number;
}

/** A patched document and where its parts now are. */
export interface Patched {
  doc: SharedDoc;
  ranges: DocRanges;
}

const NO_OWNERS: ReadonlyMap<string, string> = new Map();
const EMOTIONS = ["like", "emotions"];
const COMMENTS = ["comments"];

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
 * they are with their slots and cuts (docs/decisions/0209). Undefined when `head` is not laid out so.
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

/** `doc` (laid out as `ranges` say) with the post's new `like` first in its likes preview. */
function withLike(
  doc: SharedDoc,
  ranges: DocRanges,
  like: PostLikeAdded,
  shown: Shown,
  s: PartSerializers,
): Patched | undefined {
  if (shown.reactions < 1) return undefined;
  const text = textOf(doc, ranges.likes);
  const list = splitList(text, EMOTIONS);
  if (!list) return undefined;
  const { paging } = (JSON.parse(list.bare) as ReactionsView).like;
  const { items } = list;
  // The newest shown, the first item: only its `obsoleteId` is read.
  const newest = items[0] && valueAt(text, ["obsoleteId"], items[0][0]);
  if (newest !== undefined ? Number(newest) >= like.seq : paging.totalCount > 0) return undefined;
  const row = { ...like, entityId: like.postId, entityType: "Post" };
  const emotion = emotionOf(row, like.owner as UserProfile, shown.postSeq);
  const kept = items.slice(0, shown.reactions - 1);
  const last = kept.at(-1);
  // The last shown stays the last unless the full preview drops its oldest.
  const lastId = !last ? emotion.id : kept.length === items.length ? paging.offsetEntityId : lastIdOf(text, last);
  if (lastId === undefined) return undefined;
  const total = paging.totalCount + 1;
  const view = {
    like: {
      paging: reactionsPaging(like.postId, total, kept.length + 1, lastId, shown.reactions),
      emotions: [emotion],
    },
  };
  const pieces = withItemFirst(s.reactions(view), EMOTIONS, view, { text, at: ranges.likes[0] }, kept);
  return pieces && replaced(doc, ranges, "likes", pieces, NO_OWNERS);
}

/** The `id` of the emotion at `item`; undefined when it has none (the patch then gives up). */
function lastIdOf(text: string, [at]: TextRange): string | undefined {
  const id = valueAt(text, ["id"], at);
  return typeof id === "string" ? id : undefined;
}

/** `doc` with the post's new top-level `comment` first in its comments preview, and counted. */
function withComment(
  doc: SharedDoc,
  ranges: DocRanges,
  comment: PostCommentAdded,
  shown: Shown,
  s: PartSerializers,
): Patched | undefined {
  const text = textOf(doc, ranges.comments);
  const list = splitList(text, COMMENTS);
  if (!list) return undefined;
  const total = (JSON.parse(list.bare) as DiscussionView["commentsData"]).reactionPaging.totalCount;
  const { items } = list;
  const newest = items[0] && valueAt(text, ["entity", "obsoleteId"], items[0][0]);
  // With no comment shown (take 0, or none yet), only a post with no comment is surely without it.
  if (newest !== undefined ? Number(newest) >= comment.row.seq : total > 0) return undefined;
  const { row } = comment;
  const at = { postSeq: comment.postSeq, parentSeq: undefined };
  const item = newCommentItem(row, comment.owner as UserProfile, at, shown.reactions, null);
  const take = shown.comments;
  const view = { reactionPaging: { totalCount: total + 1 }, comments: take > 0 ? [item] : [] };
  const head = s.comments(view);
  const pieces =
    take > 0
      ? withItemFirst(head, COMMENTS, view, { text, at: ranges.comments[0] }, items.slice(0, take - 1))
      : [{ text: head, view }];
  const owners = new Map([[row.id, row.ownerId]]);
  const withItem = pieces && replaced(doc, ranges, "comments", pieces, owners);
  if (!withItem) return undefined;
  const summary = JSON.parse(textOf(withItem.doc, withItem.ranges.summary)) as DiscussionView["summary"];
  const counted = { ...summary, totalCommentsAndReplies: summary.totalCommentsAndReplies + 1 };
  return replaced(withItem.doc, withItem.ranges, "summary", [{ text: s.summary(counted) }], NO_OWNERS);
}

/**
 * The post whose new like or plain top-level comment `change` is, with its `seq` when the event
 * names it (an event of an instance older than 0210 names no seq for a like); undefined when the
 * change is not exactly one of them.
 */
export function changedPost(change: {
  like?: PostLikeAdded;
  comment?: PostCommentAdded;
}): { postId: string; postSeq: number | undefined } | undefined {
  const { like, comment } = change;
  if (like && !comment) return { postId: like.postId, postSeq: like.postSeq };
  if (comment && !like) return { postId: comment.postId, postSeq: comment.postSeq };
  return undefined;
}

/**
 * `doc` patched by the change's like or plain top-level comment (exactly one of them); undefined
 * when it cannot be (the document is then built again).
 */
export function patchedBy(
  change: { like?: PostLikeAdded; comment?: PostCommentAdded },
  doc: SharedDoc,
  ranges: DocRanges,
  shown: Shown,
  s: PartSerializers,
): Patched | undefined {
  if (change.like) return withLike(doc, ranges, change.like, shown, s);
  return change.comment && withComment(doc, ranges, change.comment, shown, s);
}

const textOf = (doc: SharedDoc, [at, end]: Range) => doc.bytes.toString("utf8", at, end);

/** `doc` with its part `name` replaced by `pieces`; the parts after it move with the bytes. */
function replaced(
  doc: SharedDoc,
  ranges: DocRanges,
  name: keyof DocRanges,
  pieces: readonly Piece[],
  owners: ReadonlyMap<string, string>,
): Patched | undefined {
  const [at, end] = ranges[name];
  const next = spliced(doc, at, end, pieces, owners);
  if (!next) return undefined;
  const shift = next.bytes.length - doc.bytes.length;
  const moved = ([a, e]: Range): Range => (a >= end ? [a + shift, e + shift] : [a, e]);
  const nextRanges: DocRanges = {
    comments: moved(ranges.comments),
    likes: moved(ranges.likes),
    summary: moved(ranges.summary),
  };
  nextRanges[name] = [at, end + shift];
  return { doc: next, ranges: nextRanges };
}
