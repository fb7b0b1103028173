import type { Ctx } from "../../context.js";
import { assembleDiscussions } from "../shared/assemble.js";
import { callerMarks, keptCallerMarks } from "../shared/caller-marks.js";
import type { CallerMarks } from "../shared/caller-marks.repository.js";
import { rangesOf } from "../shared/discussion-patches.js";
import { dependenciesOf } from "../shared/read-cache.js";
import { type Built, pushOverlaid, type SharedParts, sharedBytes, sharedDocOf } from "../shared/shared-documents.js";
import { socialRepository } from "../shared/social.repository.js";
import type { DiscussionView } from "../shared/social.view.js";
import { POST_REACTIONS_TAKE } from "./get-post.js";
import { keyOf, type PostDoc, type PostDocTakes, postDocSize } from "./post-doc.js";

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
): Promise<{ value: PostDoc; size: number; deps: string[]; renewable: boolean } | undefined> {
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
  const value: PostDoc = {
    doc,
    ownerOnly: !deleted && !visible,
    ownerId: post.ownerId,
    seq: post.seq,
    ranges: rangesOf(json),
  };
  return { value, size: postDocSize(doc, postId), deps: dependenciesOf([post], null), renewable: true };
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
  const marks = await callerMarks(parts, ctx.db.kysely, caller, [postId], () => doc);
  return overlaid(found, caller, marks);
}
