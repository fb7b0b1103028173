import { isoNow } from "../../../core/clock.js";
import { AppError } from "../../../core/errors.js";
import { type Ctx, transact } from "../../context.js";
import { resolveUserRefs, type UserRecord } from "../../identity/user-profiles.js";
import { actorRecord, requireWriter } from "../shared/access.js";
import { socialChanged } from "../shared/changes.js";
import { socialRepository } from "../shared/social.repository.js";

async function otherUser(ctx: Ctx, ref: string, selfId: string, verb: string): Promise<UserRecord> {
  const user = (await resolveUserRefs(ctx, [ref])).get(ref);
  if (!user) throw new AppError("NotFound", `No user "${ref}"`);
  if (user.userId === selfId) {
    throw new AppError("ValidationFailed", `You cannot ${verb} yourself`, [
      { field: "params/userId", message: `cannot ${verb} yourself` },
    ]);
  }
  return user;
}

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

export async function unfollowUser(ctx: Ctx, ref: string): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const user = await otherUser(ctx, ref, actor.userId, "unfollow");
  await transact(ctx, async (trx, record) => {
    await socialRepository(trx).unfollow(actor.userId, user.userId);
    record(socialChanged(isoNow(ctx.clock), { userIds: [actor.userId, user.userId] }));
  });
}

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

export async function unblockUser(ctx: Ctx, ref: string): Promise<void> {
  const actor = requireWriter(ctx.actor);
  const user = await otherUser(ctx, ref, actor.userId, "unblock");
  await transact(ctx, async (trx, record) => {
    await socialRepository(trx).unblock(actor.userId, user.userId);
    record(socialChanged(isoNow(ctx.clock), { userIds: [actor.userId, user.userId] }));
  });
}
