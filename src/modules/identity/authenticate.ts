import type { Environment, UserActor } from "../../core/actor.js";
import { hashSecret, sameHash } from "../../core/ids.js";
import type { Deps } from "../context.js";
import { identityRepository } from "./identity.repository.js";

/**
 * Turns an x-api-key / x-user-key pair into a user actor, or null when the pair is unknown,
 * revoked or mismatched. The caller decides the status; the secrets are never logged.
 */
export async function authenticateKeyPair(deps: Deps, apiKey: string, userKey: string): Promise<UserActor | null> {
  const row = await identityRepository(deps.db.kysely).findActiveKeyByUserKeyHash(hashSecret(userKey));
  if (!row || !sameHash(row.apiKeyHash, hashSecret(apiKey))) return null;
  return {
    kind: "user",
    userId: row.userId,
    gcid: row.gcid,
    via: "key-pair",
    credentialId: row.id,
    scopes: JSON.parse(row.scopes) as string[],
    environment: row.environment as Environment,
  };
}
