import type { PostLikeAdded } from "../../../core/events.js";
import type { Ctx } from "../../context.js";
import type { UserProfile } from "../../identity/user-profiles.js";
import { assembleDiscussions } from "../shared/assemble.js";
import { callerMarks, keptCallerMarks } from "../shared/caller-marks.js";
import type { CallerMarks } from "../shared/caller-marks.repository.js";
import { dependenciesOf, type Patcher } from "../shared/read-cache.js";
import {
  type Built,
  docSize,
  lastValueRange,
  pushOverlaid,
  type SharedDoc,
  type SharedParts,
  sharedBytes,
  sharedDocOf,
  spliced,
} from "../shared/shared-documents.js";
import { socialRepository } from "../shared/social.repository.js";
import { type DiscussionView, emotionOf, type ReactionsView, reactionsOf } from "../shared/social.view.js";
import { POST_REACTIONS_TAKE } from "./get-post.js";

/** A post's shared document and who may see it (docs/decisions/0169). */
interface PostDoc {
  doc: SharedDoc;
  /** Everyone (a visible post or a tombstone), or only its owner (a private profile's post). */
  ownerOnly: boolean;
  ownerId: string;
  /** The post's `seq` (its likes' `parent.obsoleteId`). */
  seq: number;
  /** Byte range in `doc.bytes` of the post's own likes preview (`emotionsData`), null if not found. */
  likes: [number, number] | null;
}

/** The key of a post's document for `take` inline comments. */
const keyOf = (postId: string, take: number) => `P\u0000${postId}\u0000${take}`;
const postDocSize = (doc: SharedDoc, postId: string) => docSize(doc, postId) + 64;

/** Posts whose takes are noted before the notes start afresh. */
const MAX_NOTED_POSTS = 50_000;

/**
 * The takes each post's documents were built for (docs/decisions/0198), so that a like finds them
 * without trying every take. A post whose takes were forgotten (the notes start afresh past
 * MAX_NOTED_POSTS) has its documents rebuilt on its next like instead of patched.
 */
export class PostDocTakes {
  private readonly byPost = new Map<string, Set<number>>();

  note(postId: string, take: number): void {
    const takes = this.byPost.get(postId);
    if (takes) takes.add(take);
    else {
      if (this.byPost.size >= MAX_NOTED_POSTS) this.byPost.clear();
      this.byPost.set(postId, new Set([take]));
    }
  }

  of(postId: string): ReadonlySet<number> {
    return this.byPost.get(postId) ?? new Set();
  }
}

/**
 * The document of one post as `GET /api/v1/posts/{postId}?take=` answers it, built with no
 * requester. Undefined when the post is missing or seen by nobody but through the per-caller path
 * (spam): those answers, and their 404s, are left to `getPost`.
 */
async function buildPostDoc(
  ctx: Ctx,
  postId: string,
  take: number,
  serialize: (view: DiscussionView) => string,
): Promise<{ value: PostDoc; size: number; deps: string[] } | undefined> {
  const found = await socialRepository(ctx.db.kysely).findPostFor(postId, null);
  if (!found) return undefined;
  const { visible, ...post } = found;
  const deleted = post.isDeleted === 1;
  if (!deleted && !visible && post.isSpam === 1) return undefined;
  const owners = new Map<string, string>();
  const [discussion] = await assembleDiscussions(ctx, [post], {
    requesterId: null,
    commentsTake: deleted ? 0 : take,
    reactionsTake: POST_REACTIONS_TAKE,
    form: "request",
    owners,
  });
  const json = serialize(discussion!);
  const doc = sharedDocOf(json, owners, { cutProfiles: false });
  if (!doc) return undefined;
  const likes = lastValueRange(json, "emotionsData", ',"requesterContext":');
  const value: PostDoc = { doc, ownerOnly: !deleted && !visible, ownerId: post.ownerId, seq: post.seq, likes };
  return { value, size: postDocSize(doc, postId), deps: dependenciesOf([post], null) };
}

/**
 * Answers one post from its shared document plus the caller's marks (one query), or hands it to
 * `fallback` (the per-caller path) when the caller may not be answered from it: the post is not
 * shareable, not visible to the caller, or the caller is involved in a block.
 */
export async function sharedPostAnswer(
  ctx: Ctx,
  parts: SharedParts,
  takes: PostDocTakes,
  postId: string,
  take: number,
  caller: string | null,
  serialize: (view: DiscussionView) => string,
): Promise<Buffer | undefined> {
  const key = keyOf(postId, take);
  const [found] = await parts.get<PostDoc>([key], async () => {
    const built: Built<PostDoc> = new Map();
    const doc = await buildPostDoc(ctx, postId, take, serialize);
    if (doc) {
      built.set(key, doc);
      takes.note(postId, take);
    }
    return built;
  });
  return found ? answerFrom(ctx, parts, found, postId, caller) : undefined;
}

/**
 * The hit path: the answer when the post's document (and, for a user, their marks) are kept and
 * the caller may be answered from them, synchronously; undefined otherwise (then `sharedPostAnswer`).
 */
export function sharedPostHit(
  parts: SharedParts,
  postId: string,
  take: number,
  caller: string | null,
): Buffer | undefined {
  const found = parts.peek<PostDoc>(keyOf(postId, take));
  if (!found) return undefined;
  if (caller === null) return found.ownerOnly ? undefined : sharedBytes(found.doc);
  const marks = keptCallerMarks(parts, caller);
  return marks ? overlaid(found, caller, marks) : undefined;
}

/** `found` as `caller` sees it; undefined when they may not be answered from it. */
function overlaid(found: PostDoc, caller: string, marks: CallerMarks): Buffer | undefined {
  if ((found.ownerOnly && caller !== found.ownerId) || marks.blocks) return undefined;
  const parts: Buffer[] = [];
  pushOverlaid(parts, found.doc, caller, marks);
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

async function answerFrom(
  ctx: Ctx,
  parts: SharedParts,
  found: PostDoc,
  postId: string,
  caller: string | null,
): Promise<Buffer | undefined> {
  if (found.ownerOnly && caller !== found.ownerId) return undefined;
  if (caller === null) return sharedBytes(found.doc);
  const { doc } = found;
  const marks = await callerMarks(parts, ctx.db.kysely, caller, [postId], doc.likedIds, doc.optionIds);
  return overlaid(found, caller, marks);
}

/**
 * Adds a post's new like to its kept documents, for every take noted, instead of their being built
 * again (docs/decisions/0198): the likes preview is written anew from the one kept, with the like
 * first and the count one more; the rest of the bytes stay.
 */
export function postLikesPatcher(takes: PostDocTakes, serializeReactions: (view: ReactionsView) => string): Patcher {
  return (event, keptValue) => {
    const like = event.like;
    if (!like) return [];
    const out: { key: string; value: PostDoc; size: number }[] = [];
    for (const take of takes.of(like.postId)) {
      const key = keyOf(like.postId, take);
      const found = keptValue(key) as PostDoc | undefined;
      const value = found && withLike(found, like, serializeReactions);
      if (value) out.push({ key, value, size: postDocSize(value.doc, like.postId) });
    }
    return out;
  };
}

function withLike(
  found: PostDoc,
  like: PostLikeAdded,
  serializeReactions: (view: ReactionsView) => string,
): PostDoc | undefined {
  if (!found.likes) return undefined;
  const [at, end] = found.likes;
  const { paging, emotions } = (JSON.parse(found.doc.bytes.toString("utf8", at, end)) as ReactionsView).like;
  // A like newer than the newest shown is surely not counted yet; any other may be (a document
  // built after it committed, its change heard later): that document is rebuilt instead.
  const newest = emotions[0];
  if (newest ? Number(newest.obsoleteId) >= like.seq : paging.totalCount > 0) return undefined;
  const row = { ...like, entityId: like.postId, entityType: "Post" };
  const emotion = emotionOf(row, like.owner as UserProfile, found.seq);
  const shown = [emotion, ...emotions].slice(0, POST_REACTIONS_TAKE);
  const view = reactionsOf(like.postId, paging.totalCount + 1, shown, POST_REACTIONS_TAKE, 0);
  const text = Buffer.from(serializeReactions(view));
  const doc = spliced(found.doc, at, end, text);
  return doc && { ...found, doc, likes: [at, at + text.length] };
}
