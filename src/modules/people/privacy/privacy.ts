import { requireUser } from "../../../core/access.js";
import type { UserActor } from "../../../core/actor.js";
import { AppError } from "../../../core/errors.js";
import type { AcceptedScopes } from "../../../core/scopes.js";
import type { Executor } from "../../../infra/db/executor.js";
import type { Ctx, Deps } from "../../context.js";
import { type PersonRow, peopleRepository } from "../people.repository.js";

/** Users Info and Users Stats reads (decision 0141). */
export const PEOPLE_READ: AcceptedScopes = ["user-info:read"];

/** A user's choices about what others see of them (decision 0141). */
export interface PrivacyChoices {
  /** Profile hidden from everyone else: users.is_private. */
  isPrivate: boolean;
  /** Portfolio (holdings, allocation, exposure and gain series) refused to everyone else. */
  portfolioOptOut: boolean;
  /** Nobody may start copying this user. */
  copyBlocked: boolean;
}

/** Someone another user reads about, with what they chose to show. */
export interface Target {
  user: PersonRow;
  /** The caller reads about themselves. */
  self: boolean;
  choices: PrivacyChoices;
}

export async function choicesOf(db: Executor, user: PersonRow): Promise<PrivacyChoices> {
  const settings = (await peopleRepository(db).settingsOf([user.id])).get(user.id);
  return {
    isPrivate: user.isPrivate === 1,
    portfolioOptOut: settings?.portfolioOptOut ?? false,
    copyBlocked: settings?.copyBlocked ?? false,
  };
}

const notFound = (username: string) => new AppError("NotFound", `User ${JSON.stringify(username)} was not found`);

/**
 * The user `username` names, as the caller may read about them: a private profile, or one with a
 * block between the two in either direction, is the same 404 as an unknown name (nothing tells
 * them apart). `portfolio`: the read shows the portfolio, refused (403) when its owner opted out.
 */
export async function readableTarget(
  ctx: Ctx,
  username: string,
  options: { portfolio: boolean; scopes?: AcceptedScopes },
): Promise<{ actor: UserActor; target: Target }> {
  const actor = requireUser(ctx.actor, options.scopes ?? PEOPLE_READ);
  const user = await peopleRepository(ctx.db.kysely).userByUsername(username);
  if (!user) throw notFound(username);
  const self = user.id === actor.userId;
  const choices = await choicesOf(ctx.db.kysely, user);
  if (!self) {
    if (choices.isPrivate) throw notFound(username);
    if (await peopleRepository(ctx.db.kysely).blockedEitherWay(actor.userId, user.id)) throw notFound(username);
    if (options.portfolio && choices.portfolioOptOut) {
      throw new AppError("Forbidden", `${user.username} has opted out of portfolio exposure`);
    }
  }
  return { actor, target: { user, self, choices } };
}

/** Why `copierId` may not copy `leaderId`, or null when they may (for the copy-trading module). */
export type CopyRefusal =
  | { code: "self"; message: string }
  | { code: "unknown"; message: string }
  | { code: "private"; message: string }
  | { code: "blocked"; message: string }
  | { code: "copyBlocked"; message: string };

/**
 * The one check copying runs before an allocation is made (decision 0141): a user cannot copy
 * themselves, a private profile or one across a block (both read as unknown, as everywhere), nor
 * someone who refused copying.
 */
export async function copyRefusal(
  deps: Pick<Deps, "db">,
  copierId: string,
  leaderId: string,
): Promise<CopyRefusal | null> {
  if (copierId === leaderId) return { code: "self", message: "A user cannot copy themselves" };
  const leader = await peopleRepository(deps.db.kysely).userById(leaderId);
  if (!leader) return { code: "unknown", message: "No such user" };
  const choices = await choicesOf(deps.db.kysely, leader);
  if (choices.isPrivate) return { code: "private", message: "No such user" };
  if (await peopleRepository(deps.db.kysely).blockedEitherWay(copierId, leaderId)) {
    return { code: "blocked", message: "No such user" };
  }
  if (choices.copyBlocked) return { code: "copyBlocked", message: `${leader.username} does not allow copying` };
  return null;
}
