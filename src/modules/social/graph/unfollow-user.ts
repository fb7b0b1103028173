import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { otherUser } from "./graph.rules.js";

export async function unfollowUser(ctx: Ctx, ref: string): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const user = await otherUser(ctx, ref, actor.userId, "unfollow");
  await transact(ctx, async (trx, record) => {
    await socialRepository(trx).unfollow(actor.userId, user.userId);
    record(socialChanged(isoNow(ctx.clock), { userIds: [actor.userId, user.userId] }));
  });
}
