import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { resolveUserRefs } from "../../identity/user-profiles.js";
import { checkMediaReferences, markMediaReferenced } from "../../media/media-references.js";
import { actionablePost, actorRecord, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { checkAttachments, checkText, newEntry, Problems } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { COMMENT_MAX } from "../shared/social.schemas.js";
import { type CommentItemView, newCommentItem } from "../shared/social.view.js";
import { type CommentInput, type CommentTarget, itemOf, liveComment, REACTIONS_IN_COMMENTS } from "./comments.rules.js";

/** Mentions in comments are written `@username` in the text (the body has no mentions field). */
const MENTION_RE = /(?:^|[^\w@])@([A-Za-z0-9][A-Za-z0-9_.-]{2,31})/g;

export async function createComment(ctx: Ctx, target: CommentTarget, input: CommentInput): Promise<CommentItemView> {
  const actor = requireWriter(ctx.actor);
  const post = await actionablePost(ctx, target.postId, actor.userId);
  const parent = target.commentId ? await liveComment(ctx, post.id, target.commentId, null) : null;
  const p = new Problems();
  const text = checkText(p, "message", input.message, COMMENT_MAX);
  const attachments = checkAttachments(p, "attachments", input.attachments);
  const uploads = await checkMediaReferences(ctx, p, "attachments", attachments, actor.userId);
  p.throwIfAny();
  const me = await actorRecord(ctx, actor);
  const names = [...new Set([...text.matchAll(MENTION_RE)].map((m) => m[1]!))];
  const mentioned = [...(await resolveUserRefs(ctx, names)).values()];
  const unique = [...new Map(mentioned.map((u) => [u.userId, u])).values()];

  const row = await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    const now = isoNow(ctx.clock);
    const comment = await repo.insertComment({
      ...newEntry(actor.userId, text, attachments, now),
      postId: post.id,
      parentId: parent?.id ?? null,
    });
    await markMediaReferenced(trx, uploads, now);
    // A plain top-level comment is added to the post's kept documents in place (0198).
    const plain = comment.parentId === null && unique.length === 0 && comment.isSpam === 0;
    const added = plain
      ? { postId: post.id, postSeq: post.seq, row: { ...comment, parentId: null }, owner: me.profile }
      : undefined;
    record(socialChanged(now, { postIds: [post.id], comment: added }));
    await repo.insertMentions(
      comment.id,
      unique.map((u) => ({ userId: u.userId, isDirect: true })),
    );
    if (post.ownerId !== actor.userId) {
      record({
        type: "PostCommented",
        postOwnerId: post.ownerId,
        actorId: actor.userId,
        actorUsername: me.username,
        postId: post.id,
        commentId: comment.id,
        isReply: parent !== null,
        occurredAt: now,
      });
    }
    for (const u of unique) {
      if (u.userId === actor.userId) continue;
      record({
        type: "UserMentioned",
        userId: u.userId,
        actorId: actor.userId,
        actorUsername: me.username,
        postId: post.id,
        commentId: comment.id,
        occurredAt: now,
      });
    }
    return comment;
  });
  // A comment without mentions has nothing else to read back: no likes nor replies yet (0199).
  if (unique.length > 0) return itemOf(ctx, row, post.seq, actor.userId);
  const at = { postSeq: post.seq, parentSeq: parent?.seq };
  return newCommentItem(row, me.profile, at, REACTIONS_IN_COMMENTS, actor.userId);
}
