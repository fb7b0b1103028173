import type { Actor, UserActor } from "./actor.js";
import { AppError } from "./errors.js";
import { type AcceptedScopes, isAdmitted, namedScopes, type Scope } from "./scopes.js";

/**
 * 403 for a caller that holds none of the scopes an operation accepts. It carries the accepted
 * scopes bare; the HTTP layer names them in `details` with the configured prefix.
 */
export class InsufficientPermissions extends AppError {
  readonly accepted: readonly Scope[];

  constructor(accepted: AcceptedScopes) {
    super("InsufficientPermissions", "The credential holds none of the scopes this operation accepts");
    this.accepted = namedScopes(accepted);
  }
}

/**
 * The one access check, pure and deny-by-default: the caller must be a user holding at least
 * one of `accepted`, or any user when `accepted` is ANY_AUTHENTICATED. A list that names no
 * scope (untyped data) admits nobody.
 */
export function requireUser(actor: Actor, accepted: AcceptedScopes): UserActor {
  if (actor.kind !== "user") throw new AppError("Unauthorized", "Authentication required");
  if (!isAdmitted(actor.scopes, accepted)) throw new InsufficientPermissions(accepted);
  return actor;
}

/** Operator-only use cases (creating users and keys) run from the CLI as the system actor. */
export function requireSystem(actor: Actor): void {
  if (actor.kind !== "system") throw new AppError("Forbidden", "Only the operator may do this");
}
