import { requireUser } from "../../core/access.js";
import type { Actor } from "../../core/actor.js";
import { AppError } from "../../core/errors.js";
import { OPERATOR_SCOPE } from "../../core/scopes.js";
import type { Deps } from "../context.js";
import type { SandboxState } from "./sandbox-state.js";

/** Every sandbox control accepts only the operator's scope (decision 0149). */
export const SANDBOX_SCOPES = [OPERATOR_SCOPE] as const;

/** The operator: a key pair holding the operator's scope, or the system actor (the CLI, tests). */
export function requireOperator(actor: Actor): void {
  if (actor.kind === "system") return;
  requireUser(actor, SANDBOX_SCOPES);
}

/** The sandbox's state; a 404 when it is off (the routes are not even registered then). */
export function sandboxOf(deps: Deps): SandboxState {
  if (!deps.sandbox) throw new AppError("NotFound", "The sandbox is off on this server (SANDBOX=off)");
  return deps.sandbox;
}

/**
 * Price controls act on the engine that ticks. With several instances (REDIS_URL) that is the
 * lease holder; a follower refuses rather than fork the price stream (decision 0148).
 */
export function requireTickingEngine(deps: Deps): void {
  if (deps.config.redisUrl && !deps.market.isLeader) {
    throw new AppError(
      "Conflict",
      "This instance does not run the market (another holds the lease): send price controls to the leading instance",
    );
  }
}
