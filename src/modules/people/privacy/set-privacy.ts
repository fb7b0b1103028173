import { requireUser } from "../../../core/access.js";
import type { AcceptedScopes } from "../../../core/scopes.js";
import { type Ctx, transact } from "../../context.js";
import { peopleRepository, setProfilePrivate } from "../people.repository.js";
import { choicesOf, type PrivacyChoices } from "./privacy.js";

export const PRIVACY_WRITE: AcceptedScopes = ["user-info:write"];
export const PRIVACY_READ: AcceptedScopes = ["user-info:read", "user-info:write"];

/** The caller's privacy choices. */
export async function readPrivacy(ctx: Ctx): Promise<PrivacyChoices> {
  const actor = requireUser(ctx.actor, PRIVACY_READ);
  const user = await peopleRepository(ctx.db.kysely).userById(actor.userId);
  return choicesOf(ctx.db.kysely, user!);
}

/** Changes the caller's choices; what is not given stays as it was. */
export async function setPrivacy(ctx: Ctx, change: Partial<PrivacyChoices>): Promise<PrivacyChoices> {
  const actor = requireUser(ctx.actor, PRIVACY_WRITE);
  return transact(ctx, async (trx, record) => {
    const user = await peopleRepository(trx).userById(actor.userId);
    const now = await choicesOf(trx, user!);
    const next: PrivacyChoices = {
      isPrivate: change.isPrivate ?? now.isPrivate,
      portfolioOptOut: change.portfolioOptOut ?? now.portfolioOptOut,
      copyBlocked: change.copyBlocked ?? now.copyBlocked,
    };
    if (next.isPrivate !== now.isPrivate) {
      await setProfilePrivate(trx, actor.userId, next.isPrivate);
      // Cached social answers show the profile and decide who sees the user's posts by it.
      const occurredAt = ctx.clock.now().toISOString();
      record({
        type: "SocialChanged",
        postIds: [],
        userIds: [actor.userId],
        listings: true,
        everywhere: true,
        occurredAt,
      });
    }
    await peopleRepository(trx).saveSettings(
      actor.userId,
      next.portfolioOptOut,
      next.copyBlocked,
      ctx.clock.now().toISOString(),
    );
    await peopleRepository(trx).setListing(actor.userId, !next.isPrivate, next.portfolioOptOut);
    return next;
  });
}
