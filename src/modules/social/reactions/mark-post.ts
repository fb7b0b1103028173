import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { newId } from "../../../core/ids.js";
import { type Ctx, transact } from "../../context.js";
import { actionablePost, actorRecord, requireOwner, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";

export type Mark = "like" | "save" | "pin" | "follow";

const TABLE = { save: "saves", pin: "pins", follow: "postFollows" } as const;

/**
 * Likes, saves, pins and follows of a post: idempotent (doing it twice is one mark, undoing
 * what is not there is fine). Pins are for the caller's own posts (their profile).
 */
export async function markPost(ctx: Ctx, postId: string, mark: Mark): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const post = await actionablePost(ctx, postId, actor.userId);
  if (mark === "pin") requireOwner(post.ownerId, actor.userId, "post (only your own posts can be pinned)");
  const me = mark === "like" ? await actorRecord(ctx, actor) : null;
  await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    const now = isoNow(ctx.clock);
    // Saves and pins also change the caller's own feeds (saved, pinned).
    record(socialChanged(now, { postIds: [postId], userIds: [actor.userId] }));
    if (mark !== "like") return repo.addMark(TABLE[mark], postId, actor.userId, now);
    const added = await repo.insertLike({
      id: newId(),
      entityId: postId,
      entityType: "Post",
      userId: actor.userId,
      createdAt: now,
    });
    if (added && post.ownerId !== actor.userId) {
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

export async function unmarkPost(ctx: Ctx, postId: string, mark: Mark): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const post = await socialRepository(ctx.db.kysely).findPost(postId);
  if (!post || post.isDeleted === 1) throw new AppError("NotFound", "The post was not found");
  if (mark === "pin") requireOwner(post.ownerId, actor.userId, "post (only your own posts can be pinned)");
  await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    if (mark === "like") await repo.deleteLike(postId, actor.userId);
    else await repo.removeMark(TABLE[mark], postId, actor.userId);
    record(socialChanged(isoNow(ctx.clock), { postIds: [postId], userIds: [actor.userId] }));
  });
}
