import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { type Ctx, transact } from "../../context.js";
import { requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { MARK_TABLE, type Mark, requireMarkable } from "./reactions.rules.js";

/** Undoes a like, save, pin or follow of a post: idempotent; the post need not be visible any more. */
export async function unmarkPost(ctx: Ctx, postId: string, mark: Mark): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const post = await socialRepository(ctx.db.kysely).findPost(postId);
  if (!post || post.isDeleted === 1) throw new AppError("NotFound", "The post was not found");
  requireMarkable(mark, post.ownerId, actor.userId);
  await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    if (mark === "like") await repo.deleteLike(postId, actor.userId);
    else await repo.removeMark(MARK_TABLE[mark], postId, actor.userId);
    record(socialChanged(isoNow(ctx.clock), { postIds: [postId], userIds: [actor.userId] }));
  });
}
