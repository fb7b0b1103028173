import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { ownPost } from "./posts.rules.js";

/** Soft delete: the post leaves every feed; by id it answers as a tombstone. */
export async function deletePost(ctx: Ctx, postId: string): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const post = await ownPost(ctx, postId, actor.userId);
  // A deleted share no longer counts in its shared and origin posts' `sharedCount`.
  const counted = [post.sharedPostId, post.sharedOriginPostId].filter((id): id is string => id !== null);
  await transact(ctx, async (trx, record) => {
    const now = isoNow(ctx.clock);
    await socialRepository(trx).updatePost(postId, { isDeleted: 1, updatedAt: now });
    record(socialChanged(now, { postIds: [postId, ...counted], listings: true }));
  });
}
