import type { Static } from "typebox";
import { AppError } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { assembleComments } from "../shared/assemble.js";
import { socialRepository } from "../shared/social.repository.js";
import type { CommentRow } from "../shared/social.rows.js";
import type { CommentBody } from "../shared/social.schemas.js";
import type { CommentItemView } from "../shared/social.view.js";

/* What every comment operation shares: its target, its input, the comment it acts on, the item it answers. */

export type CommentInput = Static<typeof CommentBody>;

/** A comment on a post (`parentId` null) or a reply to a comment of that post. */
export interface CommentTarget {
  postId: string;
  /** For replies: the comment replied to. */
  commentId?: string | undefined;
}

export const REACTIONS_IN_COMMENTS = 10;

/** A live comment (or, `parentId` set, reply) of the post: 404 otherwise. */
export async function liveComment(
  ctx: Ctx,
  postId: string,
  commentId: string,
  parentId: string | null,
): Promise<CommentRow> {
  const c = await socialRepository(ctx.db.kysely).findComment(commentId);
  if (!c || c.isDeleted === 1 || c.postId !== postId || c.parentId !== parentId) {
    throw new AppError("NotFound", parentId === null ? "The comment was not found" : "The reply was not found");
  }
  return c;
}

/** One comment item, as every comment write answers it. */
export async function itemOf(
  ctx: Ctx,
  row: CommentRow,
  postSeq: number,
  requesterId: string,
): Promise<CommentItemView> {
  const [item] = await assembleComments(
    ctx,
    [row],
    new Map([[row.postId, postSeq]]),
    REACTIONS_IN_COMMENTS,
    requesterId,
  );
  return item!;
}
