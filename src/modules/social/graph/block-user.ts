import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { otherUser } from "./graph.rules.js";

/** Blocking hides both users' posts from each other and ends any follow between them. */
export async function blockUser(ctx: Ctx, ref: string): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const user = await otherUser(ctx, ref, actor.userId, "block");
  await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    const now = isoNow(ctx.clock);
    record(socialChanged(now, { userIds: [actor.userId, user.userId] }));
    await repo.block(actor.userId, user.userId, now);
    await repo.unfollow(actor.userId, user.userId);
    await repo.unfollow(user.userId, actor.userId);
  });
}
