import { AppError, invalid } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { actionablePost } from "../shared/access.js";
import { socialRepository } from "../shared/social.repository.js";

/** The option of the poll of a post the caller may act on: 404 for each missing part, 422 for another post's poll. */
export async function checkOption(ctx: Ctx, postId: string, pollId: number, optionId: number, userId: string) {
  await actionablePost(ctx, postId, userId);
  const found = await socialRepository(ctx.db.kysely).findPollOption(postId, pollId, optionId);
  if (!found) throw new AppError("NotFound", "The poll was not found");
  if (!found.belongsToPost) {
    throw invalid("pollId", "must be the id of this post's poll");
  }
  if (found.optionId === null) throw new AppError("NotFound", "The poll option was not found");
}
