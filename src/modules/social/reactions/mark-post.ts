import { isoNow } from "../../../core/clock.js";
import { newId } from "../../../core/ids.js";
import { type Ctx, transact } from "../../context.js";
import { actionablePost, actorRecord, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { MARK_TABLE, type Mark, requireMarkable } from "./reactions.rules.js";

/**
 * Likes, saves, pins and follows of a post: idempotent (doing it twice is one mark, undoing
 * what is not there is fine). Pins are for the caller's own posts (their profile).
 */
export async function markPost(ctx: Ctx, postId: string, mark: Mark): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const post = await actionablePost(ctx, postId, actor.userId);
  requireMarkable(mark, post.ownerId, actor.userId);
  const me = mark === "like" ? await actorRecord(ctx, actor) : null;
  await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    const now = isoNow(ctx.clock);
    if (mark !== "like") {
      // Saves and pins also change the caller's own feeds (saved, pinned).
      record(socialChanged(now, { postIds: [postId], userIds: [actor.userId] }));
      return repo.addMark(MARK_TABLE[mark], postId, actor.userId, now);
    }
    const like = { id: newId(), entityId: postId, entityType: "Post", userId: actor.userId, createdAt: now };
    const seq = await repo.insertLike(like);
    // Liking twice is one like: the second changes nothing anyone reads.
    if (seq === undefined) return;
    const { id, userId, createdAt } = like;
    const added = { postId, postSeq: post.seq, id, seq, userId, createdAt, owner: me!.profile };
    record(socialChanged(now, { postIds: [postId], userIds: [actor.userId], like: added }));
    if (post.ownerId !== actor.userId) {
      record({
        type: "PostLiked",
        postOwnerId: post.ownerId,
        actorId: actor.userId,
        actorUsername: me!.username,
        postId,
        occurredAt: now,
      });
    }
  });
}
