import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { checkMediaReferences, markMediaReferenced } from "../../media/media-references.js";
import { actionablePost, requireOwner, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { checkAttachments, checkedEdit, Problems } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { COMMENT_MAX } from "../shared/social.schemas.js";
import type { CommentItemView } from "../shared/social.view.js";
import { type CommentInput, type CommentTarget, itemOf, liveComment } from "./comments.rules.js";

export async function updateComment(
  ctx: Ctx,
  target: CommentTarget & { id: string },
  input: CommentInput,
): Promise<CommentItemView> {
  const actor = requireWriter(ctx.actor);
  const post = await actionablePost(ctx, target.postId, actor.userId);
  const existing = await liveComment(ctx, post.id, target.id, target.commentId ?? null);
  requireOwner(existing.ownerId, actor.userId, target.commentId ? "reply" : "comment");
  const now = isoNow(ctx.clock);
  const changes = checkedEdit(input, COMMENT_MAX, now);
  const p = new Problems();
  const uploads = await checkMediaReferences(
    ctx,
    p,
    "attachments",
    checkAttachments(p, "attachments", input.attachments ?? []),
    actor.userId,
  );
  p.throwIfAny();
  const row = await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    await repo.updateComment(existing.id, changes);
    await markMediaReferenced(trx, uploads, now);
    record(socialChanged(now, { postIds: [post.id] }));
    return (await repo.findComment(existing.id))!;
  });
  return itemOf(ctx, row, post.seq, actor.userId);
}
