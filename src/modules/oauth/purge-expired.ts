import { requireSystem } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import type { Ctx } from "../context.js";
import { oauthRepository } from "./oauth.repository.js";
import { signInCountersRepository } from "./sign-in-counters.repository.js";

/** Deletes expired authorization codes, refresh tokens, sign-in sessions and sign-in counters. */
export async function purgeExpiredOAuthState(ctx: Ctx) {
  requireSystem(ctx.actor);
  const at = isoNow(ctx.clock);
  const expired = await oauthRepository(ctx.db.kysely).deleteExpired(at);
  return { ...expired, signInCounters: await signInCountersRepository(ctx.db.kysely).deleteExpired(at) };
}
