import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { otherUser } from "./graph.rules.js";

export async function unblockUser(ctx: Ctx, ref: string): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const user = await otherUser(ctx, ref, actor.userId, "unblock");
  await transact(ctx, async (trx, record) => {
    await socialRepository(trx).unblock(actor.userId, user.userId);
    record(socialChanged(isoNow(ctx.clock), { userIds: [actor.userId, user.userId] }));
  });
}
