import { requireSystem } from "../../core/access.js";
import { actorLabel } from "../../core/audit.js";
import { invalid } from "../../core/errors.js";
import { recordAudit } from "../audit/record-audit.js";
import { type Ctx, transact } from "../context.js";
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
  const hash = await hashPassword(password);
  await transact(ctx, async (trx) => {
    await identityRepository(trx).setPasswordHash(user.id, hash);
    await recordAudit(
      ctx,
      { action: "password.set", outcome: "success", actor: actorLabel(ctx.actor), userId: user.id },
      trx,
    );
  });
  return { userId: user.id, username: user.username };
}
