import { isoNow } from "../../../core/clock.js";
import { newId } from "../../../core/ids.js";
import { type Ctx, transact } from "../../context.js";
import { actionablePost, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { type CommentTarget, liveComment } from "./comments.rules.js";

export async function likeComment(ctx: Ctx, target: CommentTarget & { id: string }, on: boolean): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const post = await actionablePost(ctx, target.postId, actor.userId);
  const existing = await liveComment(ctx, post.id, target.id, target.commentId ?? null);
  await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    const now = isoNow(ctx.clock);
    if (on) {
      await repo.insertLike({
        id: newId(),
        entityId: existing.id,
        entityType: existing.parentId ? "Reply" : "Comment",
        userId: actor.userId,
        createdAt: now,
      });
    } else await repo.deleteLike(existing.id, actor.userId);
    record(socialChanged(now, { postIds: [post.id], userIds: [actor.userId] }));
  });
}
