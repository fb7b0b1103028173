import { requireUser } from "../../core/access.js";
import type { Ctx } from "../context.js";
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
  if (fresh.length > 0) await repo.markSeen(actor.userId, fresh);
  return { messages: rows.map(toMessage), meta: { notSeen: fresh.length } };
}
