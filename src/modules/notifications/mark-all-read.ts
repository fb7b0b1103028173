import { requireUser } from "../../core/access.js";
import type { Ctx } from "../context.js";
import { notificationsRepository } from "./notifications.repository.js";

export const MARK_ALL_READ_SCOPES = ["notifications:write"] as const;

export async function markAllNotificationsRead(ctx: Ctx): Promise<{ marked: number }> {
  const actor = requireUser(ctx.actor, MARK_ALL_READ_SCOPES);
  const marked = await notificationsRepository(ctx.db.kysely).moveStatus(actor.userId, ["New", "Seen"], "Read");
  return { marked };
}
