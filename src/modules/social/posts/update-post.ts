import type { Static } from "typebox";
import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { checkMediaReferences, markMediaReferenced } from "../../media/media-references.js";
import { requireWriter } from "../shared/access.js";
import { assemblePosts } from "../shared/assemble.js";
import { socialChanged } from "../shared/changes.js";
import { checkAttachments, checkedEdit, Problems } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { MESSAGE_MAX, type UpdatePostBody } from "../shared/social.schemas.js";
import type { PostView } from "../shared/social.view.js";
import { ownPost } from "./posts.rules.js";

/** Edits text and attachments; tags, mentions and a poll stay as created. */
export async function updatePost(ctx: Ctx, postId: string, input: Static<typeof UpdatePostBody>): Promise<PostView> {
  const actor = requireWriter(ctx.actor);
  await ownPost(ctx, postId, actor.userId);
  const now = isoNow(ctx.clock);
  const changes = checkedEdit(input, MESSAGE_MAX, now);
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
    record(socialChanged(now, { postIds: [postId] }));
    await repo.updatePost(postId, changes);
    await markMediaReferenced(trx, uploads, now);
    return (await repo.findPost(postId))!;
  });
  const [view] = await assemblePosts(ctx, [row], actor.userId, "request");
  return view!;
}
