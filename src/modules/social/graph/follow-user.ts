import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { type Ctx, transact } from "../../context.js";
import { actorRecord, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";
import { otherUser } from "./graph.rules.js";

/**
 * Following a user (upstream names no operation; decision 0074): idempotent, refused (403)
 * across a block; a new follow tells the followed user.
 */
export async function followUser(ctx: Ctx, ref: string): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const user = await otherUser(ctx, ref, actor.userId, "follow");
  const repo = socialRepository(ctx.db.kysely);
  const blocks = await repo.blocksWith(actor.userId, [user.userId]);
  if (blocks.blockedBy.has(user.userId)) throw new AppError("Forbidden", "This user restricts your interactions");
  if (blocks.blocking.has(user.userId)) throw new AppError("Forbidden", "Unblock this user before following them");
  const me = await actorRecord(ctx, actor);
  await transact(ctx, async (trx, record) => {
    const now = isoNow(ctx.clock);
    record(socialChanged(now, { userIds: [actor.userId, user.userId] }));
    if (await socialRepository(trx).follow(actor.userId, user.userId, now)) {
      record({
        type: "UserFollowed",
        userId: user.userId,
        actorId: actor.userId,
        actorUsername: me.username,
        actorGcid: me.gcid,
        occurredAt: now,
      });
    }
  });
}
