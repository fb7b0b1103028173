import { AppError } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { requireOwner } from "../shared/access.js";
import { socialRepository } from "../shared/social.repository.js";

/** A live post of the caller's own: 404 when it is missing or deleted, 403 when it is another user's. */
export async function ownPost(ctx: Ctx, postId: string, userId: string) {
  const post = await socialRepository(ctx.db.kysely).findPost(postId);
  if (!post || post.isDeleted === 1) throw new AppError("NotFound", "The post was not found");
  requireOwner(post.ownerId, userId, "post");
  return post;
}
