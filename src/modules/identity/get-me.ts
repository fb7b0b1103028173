import { requireUser } from "../../core/access.js";
import { AppError } from "../../core/errors.js";
import { type AcceptedScopes, ANY_AUTHENTICATED } from "../../core/scopes.js";
import type { Ctx } from "../context.js";
import { identityRepository } from "./identity.repository.js";
import type { MeView } from "./identity.schemas.js";
import { toMe } from "./identity.view.js";

/** Who am I: open to every authenticated caller, whatever its scopes (it reports them). */
export const GET_ME_SCOPES: AcceptedScopes = ANY_AUTHENTICATED;

export async function getMe(ctx: Ctx): Promise<MeView> {
  const actor = requireUser(ctx.actor, GET_ME_SCOPES);
  const user = await identityRepository(ctx.db.kysely).findUserById(actor.userId);
  if (!user) throw new AppError("Unauthorized", "The credential's user no longer exists");
  return toMe(user, actor.scopes, ctx.config.scopePrefix);
}
