import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { actionablePost, requireOwner, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { type CommentTarget, liveComment } from "./comments.rules.js";

export async function deleteComment(ctx: Ctx, target: CommentTarget & { id: string }): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const post = await actionablePost(ctx, target.postId, actor.userId);
  const existing = await liveComment(ctx, post.id, target.id, target.commentId ?? null);
  // The post's owner may remove comments under their post, as well as the comment's author.
  if (existing.ownerId !== actor.userId && post.ownerId !== actor.userId) {
    requireOwner(existing.ownerId, actor.userId, target.commentId ? "reply" : "comment");
  }
  await transact(ctx, async (trx, record) => {
    const now = isoNow(ctx.clock);
    await socialRepository(trx).updateComment(existing.id, { isDeleted: 1, updatedAt: now });
    record(socialChanged(now, { postIds: [post.id] }));
  });
}
