import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { checkOption } from "./polls.rules.js";

/** Takes back the caller's vote for this option; nothing happens when there is none. */
export async function removeVote(ctx: Ctx, postId: string, pollId: number, optionId: number): Promise<void> {
  const actor = requireWriter(ctx.actor);
  await checkOption(ctx, postId, pollId, optionId, actor.userId);
  await transact(ctx, async (trx, record) => {
    await socialRepository(trx).removeVote(pollId, actor.userId, optionId);
    record(socialChanged(isoNow(ctx.clock), { postIds: [postId], userIds: [actor.userId] }));
  });
}
