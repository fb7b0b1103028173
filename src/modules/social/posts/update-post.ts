import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { type Ctx, transact } from "../../context.js";
import { requireOwner, requireWriter } from "../shared/access.js";
import { assemblePosts } from "../shared/assemble.js";
import { socialChanged } from "../shared/changes.js";
import { type AttachmentInput, checkedEdit } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { MESSAGE_MAX } from "../shared/social.schemas.js";
import type { PostView } from "../shared/social.view.js";

async function ownPost(ctx: Ctx, postId: string, userId: string) {
  const post = await socialRepository(ctx.db.kysely).findPost(postId);
  if (!post || post.isDeleted === 1) throw new AppError("NotFound", "The post was not found");
  requireOwner(post.ownerId, userId, "post");
  return post;
}

/** Edits text and attachments; tags, mentions and a poll stay as created. */
export async function updatePost(
  ctx: Ctx,
  postId: string,
  input: { message: string; attachments?: AttachmentInput[] | undefined },
): Promise<PostView> {
  const actor = requireWriter(ctx.actor);
  await ownPost(ctx, postId, actor.userId);
  const now = isoNow(ctx.clock);
  const changes = checkedEdit(input, MESSAGE_MAX, now);
  const row = await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    record(socialChanged(now, { postIds: [postId] }));
    await repo.updatePost(postId, changes);
    return (await repo.findPost(postId))!;
  });
  const [view] = await assemblePosts(ctx, [row], actor.userId, "request");
  return view!;
}

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
