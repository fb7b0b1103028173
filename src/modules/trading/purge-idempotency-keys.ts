import { requireSystem } from "../../core/access.js";
import type { Ctx } from "../context.js";
import { tradingRepository } from "./trading.repository.js";

/**
 * Forgets order request ids older than IDEMPOTENCY_TTL_HOURS (24 by default): a retry within that
 * time returns the original answer; after it, the same id is a new request (docs/decisions/0047).
 */
export async function purgeIdempotencyKeys(ctx: Ctx): Promise<number> {
  requireSystem(ctx.actor);
  const cutoff = new Date(ctx.clock.now().getTime() - ctx.config.demo.idempotencyTtlHours * 3_600_000);
  return tradingRepository(ctx.db.kysely).deleteRequestsBefore(cutoff.toISOString());
}
