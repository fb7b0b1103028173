import { AppError, invalid } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { resolveUserRefs, type UserRecord } from "../../identity/user-profiles.js";

/** The user `ref` names (404 when none), who must not be the caller (422). */
export async function otherUser(ctx: Ctx, ref: string, selfId: string, verb: string): Promise<UserRecord> {
  const user = (await resolveUserRefs(ctx, [ref])).get(ref);
  if (!user) throw new AppError("NotFound", `No user "${ref}"`);
  if (user.userId === selfId) {
    throw invalid("userId", `must name another user: you cannot ${verb} yourself`);
  }
  return user;
}
