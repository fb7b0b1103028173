import { requireUser } from "../../core/access.js";
import { type Ctx, transact } from "../context.js";
import { notificationsRepository } from "./notifications.repository.js";
import { type NotificationResult, toMessage } from "./notifications.view.js";

export const LIST_NOTIFICATIONS_SCOPES = ["notifications:read"] as const;

/**
 * Returns every notification of the caller as it stood before this read (so a client can
 * highlight the new ones), with `notSeen` counting them; then the read moves `New` to `Seen`.
 */
export async function listNotifications(ctx: Ctx): Promise<NotificationResult> {
  const actor = requireUser(ctx.actor, LIST_NOTIFICATIONS_SCOPES);
  return transact(ctx, async (trx) => {
    const repo = notificationsRepository(trx);
    const rows = await repo.listForUser(actor.userId);
    const notSeen = rows.filter((r) => r.readStatus === "New").length;
    if (notSeen > 0) await repo.moveStatus(actor.userId, ["New"], "Seen");
    return { messages: rows.map(toMessage), meta: { notSeen } };
  });
}
