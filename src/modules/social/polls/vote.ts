import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { checkOption } from "./polls.rules.js";

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
    record(socialChanged(now, { postIds: [postId], userIds: [actor.userId] }));
  });
}
