import type { Actor, UserActor } from "./actor.js";
import { AppError } from "./errors.js";
import { hasAnyScope } from "./scopes.js";

/**
 * The one access check, pure and deny-by-default: the caller must be a user holding at least
 * one of `accepted` (an empty list admits any authenticated user).
 */
export function requireUser(actor: Actor, accepted: readonly string[]): UserActor {
  if (actor.kind !== "user") throw new AppError("Unauthorized", "Authentication required");
  if (!hasAnyScope(actor.scopes, accepted)) {
    throw new AppError("InsufficientPermissions", `This operation needs one of these scopes: ${accepted.join(", ")}`);
  }
  return actor;
}

/** Operator-only use cases (creating users and keys) run from the CLI as the system actor. */
export function requireSystem(actor: Actor): void {
  if (actor.kind !== "system") throw new AppError("Forbidden", "Only the operator may do this");
}
