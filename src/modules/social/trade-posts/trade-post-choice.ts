import { isoNow } from "../../../core/clock.js";
import type { Ctx } from "../../context.js";
import { requireReader, requireWriter } from "../shared/access.js";
import { tradePostsRepository } from "./trade-posts.repository.js";

/** Whether the caller's opens and closes are published as Trade posts (off until they choose). */
export async function readTradePostChoice(ctx: Ctx): Promise<{ enabled: boolean }> {
  const actor = requireReader(ctx.actor);
  return { enabled: await tradePostsRepository(ctx.db.kysely).isEnabled(actor.userId) };
}

export async function setTradePostChoice(ctx: Ctx, enabled: boolean): Promise<{ enabled: boolean }> {
  const actor = requireWriter(ctx.actor);
  await tradePostsRepository(ctx.db.kysely).setEnabled(actor.userId, enabled, isoNow(ctx.clock));
  return { enabled };
}
