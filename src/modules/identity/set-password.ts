import { requireSystem } from "../../core/access.js";
import { invalid } from "../../core/errors.js";
import type { Ctx } from "../context.js";
import { identityRepository } from "./identity.repository.js";
import { hashPassword, passwordProblem } from "./passwords.js";
import { resolveUser } from "./user-ref.js";

/** Operator only (`users create --password`, `users set-password`): sets or replaces a password. */
export async function setPassword(
  ctx: Ctx,
  userRef: string,
  password: string,
): Promise<{ userId: string; username: string }> {
  requireSystem(ctx.actor);
  const problem = passwordProblem(password);
  if (problem) throw invalid("password", problem);
  const user = await resolveUser(ctx.db.kysely, userRef);
  await identityRepository(ctx.db.kysely).setPasswordHash(user.id, await hashPassword(password));
  return { userId: user.id, username: user.username };
}
