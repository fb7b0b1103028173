import type { Static } from "typebox";
import { isoNow } from "../../../core/clock.js";
import { invalid } from "../../../core/errors.js";
import { type Ctx, transact } from "../../context.js";
import { checkMediaReferences, markMediaReferenced } from "../../media/media-references.js";
import { actionablePost, actorRecord, requireWriter } from "../shared/access.js";
import { assemblePosts } from "../shared/assemble.js";
import { socialChanged } from "../shared/changes.js";
import { checkAttachments, checkText, newEntry, Problems } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { MESSAGE_MAX, type ShareBody } from "../shared/social.schemas.js";
import type { PostView } from "../shared/social.view.js";

export type ShareInput = Static<typeof ShareBody>;

/**
 * A share is a post of type Share. Its metadata is flat (two levels): `sharedPost` is what was
 * shared directly and `sharedOriginPost` the original, however long the chain of shares.
 */
export async function sharePost(ctx: Ctx, input: ShareInput): Promise<PostView> {
  const actor = requireWriter(ctx.actor);
  const p = new Problems();
  const text = checkText(p, "message", input.message, MESSAGE_MAX, true);
  const attachments = checkAttachments(p, "attachments", input.attachments);
  const uploads = await checkMediaReferences(ctx, p, "attachments", attachments, actor.userId);
  p.throwIfAny();
  const target = await actionablePost(ctx, input.sharedOriginDiscussion, actor.userId);
  let sharedId = target.id;
  let originId = target.type === "Share" && target.sharedOriginPostId ? target.sharedOriginPostId : target.id;
  if (input.sharedDiscussionId) {
    const via = await actionablePost(ctx, input.sharedDiscussionId, actor.userId);
    if (via.type !== "Share" || (via.sharedOriginPostId !== target.id && via.id !== target.id)) {
      throw invalid("sharedDiscussionId", "must be a share of the post {sharedOriginDiscussion} names");
    }
    sharedId = via.id;
    originId = target.type === "Share" && target.sharedOriginPostId ? target.sharedOriginPostId : target.id;
  }
  const origin = await actionablePost(ctx, originId, actor.userId);
  const me = await actorRecord(ctx, actor);

  const row = await transact(ctx, async (trx, record) => {
    const now = isoNow(ctx.clock);
    const post = await socialRepository(trx).insertPost({
      ...newEntry(actor.userId, text, attachments, now),
      type: "Share",
      sharedPostId: sharedId,
      sharedOriginPostId: origin.id,
    });
    await markMediaReferenced(trx, uploads, now);
    // The shared posts' counts change, and feeds list the share.
    record(
      socialChanged(now, {
        postIds: [post.id, sharedId, origin.id],
        listed: { ownerId: actor.userId, instrumentIds: [] },
      }),
    );
    if (origin.ownerId !== actor.userId) {
      record({
        type: "PostShared",
        postOwnerId: origin.ownerId,
        actorId: actor.userId,
        actorUsername: me.username,
        postId: origin.id,
        sharePostId: post.id,
        occurredAt: now,
      });
    }
    return post;
  });
  const [view] = await assemblePosts(ctx, [row], actor.userId, "request");
  return view!;
}
