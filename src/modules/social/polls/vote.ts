import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { type Ctx, transact } from "../../context.js";
import { actionablePost, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";

async function checkOption(ctx: Ctx, postId: string, pollId: number, optionId: number, userId: string) {
  await actionablePost(ctx, postId, userId);
  const found = await socialRepository(ctx.db.kysely).findPollOption(postId, pollId, optionId);
  if (!found) throw new AppError("NotFound", "The poll was not found");
  if (!found.belongsToPost) {
    throw new AppError("ValidationFailed", "The poll is not part of this post", [
      { field: "params/pollId", message: "is not the poll of this post" },
    ]);
  }
  if (found.optionId === null) throw new AppError("NotFound", "The poll option was not found");
}

/**
 * One vote per user per poll: the (poll, user) primary key and a single upsert make a change of
 * vote and concurrent votes exact; counts are always counted, never incremented.
 */
export async function vote(ctx: Ctx, postId: string, pollId: number, optionId: number): Promise<void> {
  const actor = requireWriter(ctx.actor);
  await checkOption(ctx, postId, pollId, optionId, actor.userId);
  await transact(ctx, async (trx, record) => {
    const now = isoNow(ctx.clock);
    await socialRepository(trx).upsertVote(pollId, actor.userId, optionId, now);
    record(socialChanged(now, { postIds: [postId] }));
  });
}

export async function removeVote(ctx: Ctx, postId: string, pollId: number, optionId: number): Promise<void> {
  const actor = requireWriter(ctx.actor);
  await checkOption(ctx, postId, pollId, optionId, actor.userId);
  await transact(ctx, async (trx, record) => {
    await socialRepository(trx).removeVote(pollId, actor.userId, optionId);
    record(socialChanged(isoNow(ctx.clock), { postIds: [postId] }));
  });
}
