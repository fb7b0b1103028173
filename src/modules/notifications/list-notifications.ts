import { requireUser } from "../../core/access.js";
import type { Actor } from "../../core/actor.js";
import { isoNow } from "../../core/clock.js";
import { type Ctx, type Deps, withActor } from "../context.js";
import { notificationsRepository } from "./notifications.repository.js";
import { type NotificationResult, toMessage } from "./notifications.view.js";

export const LIST_NOTIFICATIONS_SCOPES = ["notifications:read"] as const;

/**
 * Returns every notification of the caller as it stood before this read (so a client can
 * highlight the new ones), with `notSeen` counting them; then the read moves `New` to `Seen`.
 */
export async function listNotifications(ctx: Ctx): Promise<NotificationResult> {
  const actor = requireUser(ctx.actor, LIST_NOTIFICATIONS_SCOPES);
  const repo = notificationsRepository(ctx.db.kysely);
  const rows = await repo.listForUser(actor.userId);
  const fresh = rows.filter((r) => r.readStatus === "New").map((r) => r.id);
  // One guarded statement, no transaction: only what this read returned moves to Seen, so a
  // notification arriving meanwhile stays New for the next read.
  if (fresh.length > 0 && (await repo.markSeen(actor.userId, fresh)) > 0) {
    await ctx.bus.publish([{ type: "NotificationsChanged", userIds: [actor.userId], occurredAt: isoNow(ctx.clock) }]);
  }
  return { messages: rows.map(toMessage), meta: { notSeen: fresh.length } };
}

/**
 * The poll's answer as the bytes sent (`serialize`: the route's 200 serializer). A poll that finds
 * nothing New is answered from the caller's kept answer while nothing changed (poll-cache.ts):
 * synchronously, with no database read or write. Otherwise it is computed by `listNotifications`,
 * and kept when it found nothing New.
 */
export function pollNotifications(
  deps: Deps,
  actor: Actor,
  serialize: (result: NotificationResult) => string,
): Buffer | Promise<Buffer> {
  const user = requireUser(actor, LIST_NOTIFICATIONS_SCOPES);
  const polls = deps.notificationPolls;
  const kept = polls.peek(user.userId);
  if (kept) return kept;
  const ticket = polls.begin(user.userId);
  return listNotifications(withActor(deps, user)).then(
    (result) => {
      const body = Buffer.from(serialize(result));
      if (result.meta.notSeen === 0) polls.keep(ticket, body);
      else polls.release(ticket);
      return body;
    },
    (error: unknown) => {
      polls.release(ticket);
      throw error;
    },
  );
}
