import type { Actor } from "./actor.js";

/**
 * Security events the audit trail keeps (src/modules/audit, docs/decisions/0103). Names are
 * `<thing>.<what happened>`; add one here before recording it, so the list stays the catalogue.
 */
export const AUDIT_ACTIONS = [
  "sign-in.succeeded",
  "sign-in.failed",
  "sign-in.delayed",
  "sign-in.locked",
  "password.set",
  "key-pair.created",
  "key-pair.revoked",
  "oauth-client.created",
  "access-token.minted",
  "oauth-grant.revoked",
  "refresh-token.reused",
  "signing-key.rotated",
  "signing-keys.dropped",
  "signing-keys.reencrypted",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** `success`: done; `failure`: attempted and failed (a wrong password); `refused`: not attempted (a lock). */
export type AuditOutcome = "success" | "failure" | "refused";

export type AuditDetail = string | number | boolean | null;

export interface AuditEntry {
  readonly action: AuditAction;
  readonly outcome: AuditOutcome;
  /** Who acted (see `actorLabel`); absent for an anonymous caller, whose address says more. */
  readonly actor?: string | undefined;
  /** The account the event concerns. */
  readonly userId?: string | undefined;
  /** The client address the request came from, when it came over HTTP. */
  readonly address?: string | undefined;
  /** Anything else worth knowing: never a secret, a password or a whole token. */
  readonly details?: Readonly<Record<string, AuditDetail>>;
}

/** `user:<id>` (with the credential it came through), `system:<name>` or `anonymous`. */
export function actorLabel(actor: Actor): string {
  if (actor.kind === "user") return `user:${actor.userId} via ${actor.via}:${actor.credentialId}`;
  if (actor.kind === "system") return `system:${actor.name}`;
  return "anonymous";
}
