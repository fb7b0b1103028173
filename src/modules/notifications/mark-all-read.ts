import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import type { Ctx } from "../context.js";
import { notificationsRepository } from "./notifications.repository.js";

export const MARK_ALL_READ_SCOPES = ["notifications:write"] as const;

export async function markAllNotificationsRead(ctx: Ctx): Promise<{ marked: number }> {
  const actor = requireUser(ctx.actor, MARK_ALL_READ_SCOPES);
  const marked = await notificationsRepository(ctx.db.kysely).moveStatus(actor.userId, ["New", "Seen"], "Read");
  // Every instance's kept poll answer of this user now lists other statuses (poll-cache.ts).
  if (marked > 0) {
    await ctx.bus.publish([{ type: "NotificationsChanged", userIds: [actor.userId], occurredAt: isoNow(ctx.clock) }]);
  }
  return { marked };
}
