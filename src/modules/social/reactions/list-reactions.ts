import type { Static } from "typebox";
import { AppError } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { getUserProfiles } from "../../identity/user-profiles.js";
import { requesterOf } from "../shared/access.js";
import { socialRepository } from "../shared/social.repository.js";
import type { EmotionsQuery, EmotionsResponse } from "../shared/social.schemas.js";
import { toReactions } from "../shared/social.view.js";

/**
 * Reactions (likes) of a post or comment, page by page: the target of the `next` links in
 * every `emotionsData.like.paging`.
 */
export async function listReactions(
  ctx: Ctx,
  entityId: string,
  q: Static<typeof EmotionsQuery>,
): Promise<Static<typeof EmotionsResponse>> {
  const requesterId = requesterOf(ctx.actor);
  const repo = socialRepository(ctx.db.kysely);
  const comment = await repo.findComment(entityId);
  const postId = comment ? comment.postId : entityId;
  const post = await repo.findPost(postId);
  if (!post || post.isDeleted === 1 || comment?.isDeleted === 1 || !(await repo.isVisible(postId, requesterId))) {
    throw new AppError("NotFound", "No such post or comment");
  }
  const [likes, counts] = await Promise.all([repo.likesPage(entityId, q.offset, q.take), repo.likeCounts([entityId])]);
  const users = await getUserProfiles(
    ctx,
    likes.map((l) => l.userId),
  );
  const blocks = requesterId ? await repo.blocksWith(requesterId, [...users.keys()]) : { blockedBy: new Set<string>() };
  const b = { users, blockedBy: blocks.blockedBy };
  const seq = comment ? comment.seq : post.seq;
  return toReactions(entityId, counts.get(entityId) ?? 0, likes, q.take, q.offset, b, seq).like;
}
