import type { Static } from "typebox";
import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { type Ctx, transact } from "../../context.js";
import { checkMediaReferences, markMediaReferenced } from "../../media/media-references.js";
import { actorRecord, requireWriter } from "../shared/access.js";
import { assemblePosts } from "../shared/assemble.js";
import { socialChanged } from "../shared/changes.js";
import { checkAttachments, checkText, newEntry, Problems, resolveMentions, resolveTags } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { type CreateDiscussionBody, MESSAGE_MAX } from "../shared/social.schemas.js";
import type { AttachmentForm, PostOf } from "../shared/social.view.js";

type CreateDiscussion = Static<typeof CreateDiscussionBody>;

/** The body, with tags and mentions as plain lists (the wire nests them: `tags.tags`, `mentions.mentions`). */
export type CreatePostInput = Omit<CreateDiscussion, "tags" | "mentions"> & {
  tags?: NonNullable<CreateDiscussion["tags"]>["tags"] | undefined;
  mentions?: NonNullable<CreateDiscussion["mentions"]>["mentions"] | undefined;
};

/** A discussion post with tags on instruments, mentions of users and attachments. */
export async function createPost<F extends AttachmentForm>(
  ctx: Ctx,
  input: CreatePostInput,
  form: F,
): Promise<PostOf<F>> {
  const actor = requireWriter(ctx.actor);
  if (input.owner !== undefined && input.owner !== actor.gcid) {
    throw new AppError("Forbidden", "A post can only be created as the authenticated user", [
      { field: "owner", problem: "must be the caller's gcid, or be left out" },
    ]);
  }
  const p = new Problems();
  const text = checkText(p, "message", input.message, MESSAGE_MAX);
  const attachments = checkAttachments(p, "attachments", input.attachments);
  const instrumentIds = await resolveTags(ctx, p, "tags", input.tags);
  const mentions = await resolveMentions(ctx, p, "mentions", input.mentions);
  const uploads = await checkMediaReferences(ctx, p, "attachments", attachments, actor.userId);
  p.throwIfAny();
  const me = await actorRecord(ctx, actor);

  const row = await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    const now = isoNow(ctx.clock);
    const post = await repo.insertPost({
      ...newEntry(actor.userId, text, attachments, now),
      type: "Default",
      sharedPostId: null,
      sharedOriginPostId: null,
    });
    await markMediaReferenced(trx, uploads, now);
    await repo.insertTags(
      instrumentIds.map((instrumentId, position) => ({
        postId: post.id,
        postSeq: post.seq,
        instrumentId,
        position,
        createdAt: now,
      })),
    );
    await repo.insertMentions(
      post.id,
      mentions.map((m) => ({ userId: m.user.userId, isDirect: m.isDirect })),
    );
    record(socialChanged(now, { postIds: [post.id], listed: { ownerId: actor.userId, instrumentIds } }));
    for (const m of mentions) {
      if (m.user.userId === actor.userId) continue;
      record({
        type: "UserMentioned",
        userId: m.user.userId,
        actorId: actor.userId,
        actorUsername: me.username,
        postId: post.id,
        commentId: null,
        occurredAt: now,
      });
    }
    return post;
  });
  const [view] = await assemblePosts(ctx, [row], actor.userId, form);
  return view!;
}
