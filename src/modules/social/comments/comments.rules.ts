import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { newId } from "../../../core/ids.js";
import { type Ctx, transact } from "../../context.js";
import { resolveUserRefs } from "../../identity/user-profiles.js";
import { actionablePost, actorRecord, requesterOf, requireOwner, requireWriter } from "../shared/access.js";
import { assembleComments } from "../shared/assemble.js";
import { socialChanged } from "../shared/changes.js";
import {
  type AttachmentInput,
  checkAttachments,
  checkedEdit,
  checkText,
  newEntry,
  Problems,
} from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import type { CommentRow } from "../shared/social.rows.js";
import { COMMENT_MAX } from "../shared/social.schemas.js";
import type { CommentItemView } from "../shared/social.view.js";

/** Mentions in comments are written `@username` in the text (the body has no mentions field). */
const MENTION_RE = /(?:^|[^\w@])@([A-Za-z0-9][A-Za-z0-9_.-]{2,31})/g;

export interface CommentInput {
  message: string;
  attachments?: AttachmentInput[] | undefined;
}

/** A comment on a post (`parentId` null) or a reply to a comment of that post. */
export interface CommentTarget {
  postId: string;
  /** For replies: the comment replied to. */
  commentId?: string | undefined;
}

export const REACTIONS_IN_COMMENTS = 10;

async function liveComment(ctx: Ctx, postId: string, commentId: string, parentId: string | null): Promise<CommentRow> {
  const c = await socialRepository(ctx.db.kysely).findComment(commentId);
  if (!c || c.isDeleted === 1 || c.postId !== postId || c.parentId !== parentId) {
    throw new AppError("NotFound", parentId === null ? "The comment was not found" : "The reply was not found");
  }
  return c;
}

async function itemOf(ctx: Ctx, row: CommentRow, postSeq: number, requesterId: string): Promise<CommentItemView> {
  const [item] = await assembleComments(
    ctx,
    [row],
    new Map([[row.postId, postSeq]]),
    REACTIONS_IN_COMMENTS,
    requesterId,
  );
  return item!;
}

export async function createComment(ctx: Ctx, target: CommentTarget, input: CommentInput): Promise<CommentItemView> {
  const actor = requireWriter(ctx.actor);
  const post = await actionablePost(ctx, target.postId, actor.userId);
  const parent = target.commentId ? await liveComment(ctx, post.id, target.commentId, null) : null;
  const p = new Problems();
  const text = checkText(p, "body/message", input.message, COMMENT_MAX);
  const attachments = checkAttachments(p, "body/attachments", input.attachments);
  p.throwIfAny();
  const me = await actorRecord(ctx, actor);
  const names = [...new Set([...text.matchAll(MENTION_RE)].map((m) => m[1]!))];
  const mentioned = [...(await resolveUserRefs(ctx, names)).values()];

  const row = await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    const now = isoNow(ctx.clock);
    const comment = await repo.insertComment({
      ...newEntry(actor.userId, text, attachments, now),
      postId: post.id,
      parentId: parent?.id ?? null,
    });
    record(socialChanged(now, { postIds: [post.id] }));
    const unique = [...new Map(mentioned.map((u) => [u.userId, u])).values()];
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
  return itemOf(ctx, row, post.seq, actor.userId);
}

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
  const row = await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    await repo.updateComment(existing.id, changes);
    record(socialChanged(now, { postIds: [post.id] }));
    return (await repo.findComment(existing.id))!;
  });
  return itemOf(ctx, row, post.seq, actor.userId);
}

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
    record(socialChanged(now, { postIds: [post.id] }));
  });
}

export interface CommentsPage {
  reactionPaging: { totalCount: number; offsetEntityId: string; next: string };
  comments: CommentItemView[];
}

/** Comments of a post, or replies of a comment: cursor paging on the last item's id. */
export async function listComments(
  ctx: Ctx,
  target: CommentTarget,
  q: { take: number; offsetEntityId?: string | undefined; order: "Asc" | "Desc" | "asc" | "desc" },
): Promise<CommentsPage> {
  const requesterId = requesterOf(ctx.actor);
  const repo = socialRepository(ctx.db.kysely);
  const post = await repo.findPost(target.postId);
  if (!post || post.isDeleted === 1 || !(await repo.isVisible(post.id, requesterId))) {
    throw new AppError("NotFound", "The post was not found");
  }
  const parentId = target.commentId ? (await liveComment(ctx, post.id, target.commentId, null)).id : null;
  let after: number | null = null;
  if (q.offsetEntityId) {
    const cursor = await repo.findComment(q.offsetEntityId);
    if (!cursor || cursor.postId !== post.id) {
      throw new AppError("ValidationFailed", "offsetEntityId is not an item of this list", [
        { field: "querystring/offsetEntityId", message: "is not an item of this list" },
      ]);
    }
    after = cursor.seq;
  }
  const filter = { postId: post.id, parentId };
  const [rows, total] = await Promise.all([
    repo.listComments(filter, after, q.order.toLowerCase() as "asc" | "desc", q.take + 1, requesterId),
    repo.countComments(filter),
  ]);
  const page = rows.slice(0, q.take);
  const items = await assembleComments(
    ctx,
    page,
    new Map([[post.id, post.seq]]),
    REACTIONS_IN_COMMENTS,
    requesterId,
    true,
  );
  const last = page.at(-1)?.id ?? "";
  const base = parentId ? `/api/v1/posts/${post.id}/comments/${parentId}/replies` : `/api/v1/posts/${post.id}/comments`;
  return {
    reactionPaging: {
      totalCount: total,
      offsetEntityId: last,
      next: rows.length > q.take ? `${base}?take=${q.take}&order=${q.order}&offsetEntityId=${last}` : "",
    },
    comments: items,
  };
}
