import type { Static } from "typebox";
import { AppError } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { requesterOf } from "../shared/access.js";
import { assembleDiscussions } from "../shared/assemble.js";
import { type Answer, dependenciesOf } from "../shared/read-cache.js";
import { socialRepository } from "../shared/social.repository.js";
import type { PostQuery } from "../shared/social.schemas.js";
import type { DiscussionView } from "../shared/social.view.js";

/** Inline comments (>= 0). */
export type GetPostQuery = Pick<Static<typeof PostQuery>, "take">;

/** Inline reactions of the single-post view (the operation has no parameter for it). */
export const POST_REACTIONS_TAKE = 10;

/**
 * One Discussion. Anonymous callers get the public view (every requester flag false).
 * A soft-deleted post still answers, as a tombstone (`isDeleted`, no content); spam, private
 * and blocked posts answer 404 to everyone but whoever may see them. The answer names what it was
 * made of, for the read cache.
 */
export async function getPost(ctx: Ctx, postId: string, query: GetPostQuery): Promise<Answer<DiscussionView>> {
  const requesterId = requesterOf(ctx.actor);
  const repo = socialRepository(ctx.db.kysely);
  const found = await repo.findPostFor(postId, requesterId);
  if (!found || (found.isDeleted === 0 && !found.visible)) throw new AppError("NotFound", "The post was not found");
  const { visible: _visible, ...post } = found;
  const [discussion] = await assembleDiscussions(ctx, [post], {
    requesterId,
    commentsTake: post.isDeleted ? 0 : query.take,
    reactionsTake: POST_REACTIONS_TAKE,
    form: "request",
  });
  return { view: discussion!, deps: dependenciesOf([post], requesterId) };
}
