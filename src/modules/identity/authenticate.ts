import type { Environment, UserActor } from "../../core/actor.js";
import { hashSecret, sameHash } from "../../core/ids.js";
import { TtlCache } from "../../core/ttl-cache.js";
import type { Deps } from "../context.js";
import { identityRepository } from "./identity.repository.js";

export type KeyPairAuthenticator = (apiKey: string, userKey: string) => Promise<UserActor | null>;

interface Known {
  actor: UserActor;
  apiKeyHash: string;
}

/**
 * Turns an x-api-key / x-user-key pair into a user actor, or null when the pair is unknown,
 * revoked or mismatched. The caller decides the status; the secrets are never logged.
 *
 * Valid pairs are remembered for `config.authCacheTtlMs` (1 s by default) so that a busy client
 * costs one lookup per second instead of one per request. A revocation in this process takes
 * effect at once in every instance sharing the event bus (KeyPairRevoked); one made where no bus
 * reaches (the CLI beside a server) within that TTL.
 */
export function createKeyPairAuthenticator(deps: Deps): KeyPairAuthenticator {
  const cache = new TtlCache<Known>(deps.config.authCacheTtlMs, 10_000, deps.clock);
  deps.bus.subscribeEverywhere("KeyPairRevoked", (event) =>
    cache.evictWhere((k) => k.actor.credentialId === event.keyPairId),
  );

  return async (apiKey, userKey) => {
    const userKeyHash = hashSecret(userKey);
    const apiKeyHash = hashSecret(apiKey);
    const known = cache.get(userKeyHash);
    if (known) return sameHash(known.apiKeyHash, apiKeyHash) ? known.actor : null;

    const row = await identityRepository(deps.db.kysely).findActiveKeyByUserKeyHash(userKeyHash);
    if (!row) return null;
    const actor: UserActor = {
      kind: "user",
      userId: row.userId,
      gcid: row.gcid,
      via: "key-pair",
      credentialId: row.id,
      scopes: JSON.parse(row.scopes) as string[],
      environment: row.environment as Environment,
    };
    cache.set(userKeyHash, { actor, apiKeyHash: row.apiKeyHash });
    return sameHash(row.apiKeyHash, apiKeyHash) ? actor : null;
  };
}
