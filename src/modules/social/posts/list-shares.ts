import type { Static } from "typebox";
import { AppError } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { getUserProfiles } from "../../identity/user-profiles.js";
import { requireReader } from "../shared/access.js";
import { socialRepository } from "../shared/social.repository.js";
import type { ListQuery, SharesResponse } from "../shared/social.schemas.js";

/** Who shared a post, newest first by default; cursor paging on the last share's id. */
export async function listShares(
  ctx: Ctx,
  postId: string,
  q: Pick<Static<typeof ListQuery>, "take" | "offsetEntityId" | "order">,
): Promise<Static<typeof SharesResponse>> {
  const actor = requireReader(ctx.actor);
  const repo = socialRepository(ctx.db.kysely);
  const post = await repo.findPost(postId);
  if (!post || post.isDeleted === 1 || !(await repo.isVisible(postId, actor.userId))) {
    throw new AppError("NotFound", "The post was not found");
  }
  const after = q.offsetEntityId ? ((await repo.findPost(q.offsetEntityId))?.seq ?? null) : null;
  const [rows, total] = await Promise.all([
    repo.sharesOf(postId, after, q.order.toLowerCase() as "asc" | "desc", q.take + 1),
    repo.countShares(postId),
  ]);
  const page = rows.slice(0, q.take);
  const users = await getUserProfiles(
    ctx,
    page.map((r) => r.ownerId),
  );
  const last = page.at(-1)?.id ?? "";
  return {
    paging: {
      totalCount: total,
      offsetEntityId: last,
      next:
        rows.length > q.take
          ? `/api/v1/posts/${postId}/shares?take=${q.take}&order=${q.order}&offsetEntityId=${last}`
          : "",
    },
    postShares: page.flatMap((r) => {
      const owner = users.get(r.ownerId);
      return owner ? [{ shareReactionId: r.id, createdAt: r.createdAt, owner: owner.profile }] : [];
    }),
  };
}
