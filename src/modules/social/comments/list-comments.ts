import type { Static } from "typebox";
import { AppError, invalid } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { requesterOf } from "../shared/access.js";
import { assembleComments } from "../shared/assemble.js";
import { socialRepository } from "../shared/social.repository.js";
import type { CommentsResponse, ListQuery } from "../shared/social.schemas.js";
import { type CommentTarget, liveComment, REACTIONS_IN_COMMENTS } from "./comments.rules.js";

/** Comments of a post, or replies of a comment: cursor paging on the last item's id. */
export async function listComments(
  ctx: Ctx,
  target: CommentTarget,
  q: Pick<Static<typeof ListQuery>, "take" | "offsetEntityId" | "order">,
): Promise<Static<typeof CommentsResponse>> {
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
      throw invalid("offsetEntityId", "must be the id of an item of this list");
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
