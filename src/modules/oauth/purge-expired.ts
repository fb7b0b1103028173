import { requireSystem } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import type { Ctx } from "../context.js";
import { oauthRepository } from "./oauth.repository.js";

/** Deletes expired authorization codes, refresh tokens and sign-in sessions. */
export async function purgeExpiredOAuthState(ctx: Ctx) {
  requireSystem(ctx.actor);
  return oauthRepository(ctx.db.kysely).deleteExpired(isoNow(ctx.clock));
}
