import type { Environment, UserActor } from "../../core/actor.js";
import { hashSecret, sameHash } from "../../core/ids.js";
import { TtlCache } from "../../core/ttl-cache.js";
import type { Deps } from "../context.js";
import { identityRepository } from "./identity.repository.js";

/** A pair verified within the TTL is answered at once; otherwise after a lookup. */
export type KeyPairAuthenticator = (apiKey: string, userKey: string) => UserActor | null | Promise<UserActor | null>;

interface Known {
  actor: UserActor;
  apiKeyHash: string;
  /** An agent portfolio's user token may expire (ms since the epoch). */
  expiresAtMs?: number;
  /** The x-api-key last seen to match, so that a repeated pair is checked without hashing. */
  verified?: string;
  /** The store's `externalVersion` when the row was read (SQLite; undefined on PostgreSQL). */
  version: number | undefined;
}

/** Equal texts, compared in time that depends on their length only (no early exit, no allocation). */
function sameText(known: string, presented: string): boolean {
  if (known.length !== presented.length) return false;
  let diff = 0;
  for (let i = 0; i < known.length; i++) diff |= known.charCodeAt(i) ^ presented.charCodeAt(i);
  return diff === 0;
}

/**
 * Turns an x-api-key / x-user-key pair into a user actor, or null when the pair is unknown,
 * revoked or mismatched. The caller decides the status; the secrets are never logged.
 *
 * Valid pairs are remembered for `config.authCacheTtlMs` (1 s by default) so that a busy client
 * costs one lookup per second instead of one per request; they are keyed by the x-user-key itself
 * (held only in memory), so a repeated pair costs no hashing. A revocation or change in this
 * process takes effect at once in every instance sharing the event bus (KeyPairRevoked); one made
 * where no bus reaches (the CLI beside a server) within that TTL on PostgreSQL, and at once on
 * SQLite: there an entry whose TTL ran out is kept without a lookup while no other process has
 * written to the file since it was read (`externalVersion`, decision 0187), so 1,000 callers who
 * each come back every few seconds are not looked up on every request.
 */
export function createKeyPairAuthenticator(deps: Deps): KeyPairAuthenticator {
  const cache = new TtlCache<Known>(deps.config.authCacheTtlMs, 10_000, deps.clock);
  deps.bus.subscribeEverywhere("KeyPairRevoked", (event) =>
    cache.evictWhere((k) => k.actor.credentialId === event.keyPairId),
  );

  const check = (known: Known, apiKey: string): UserActor | null => {
    if (known.expiresAtMs !== undefined && deps.clock.now().getTime() >= known.expiresAtMs) return null;
    if (known.verified && sameText(known.verified, apiKey)) return known.actor;
    if (!sameHash(known.apiKeyHash, hashSecret(apiKey))) return null;
    known.verified = apiKey;
    return known.actor;
  };

  const lookup = async (apiKey: string, userKey: string): Promise<UserActor | null> => {
    // Read before the row: a write landing in between makes the entry look older, never newer.
    const version = deps.db.externalVersion();
    const row = await identityRepository(deps.db.kysely).findActiveKeyByUserKeyHash(hashSecret(userKey));
    if (!row) return null;
    const actor: UserActor = {
      kind: "user",
      userId: row.userId,
      gcid: row.gcid,
      via: "key-pair",
      credentialId: row.id,
      scopes: JSON.parse(row.scopes) as string[],
      environment: row.environment as Environment,
      ...(row.ipsWhitelist ? { allowedIps: JSON.parse(row.ipsWhitelist) as string[] } : {}),
    };
    const entry: Known = {
      actor,
      version,
      apiKeyHash: row.apiKeyHash,
      ...(row.expiresAt ? { expiresAtMs: Date.parse(row.expiresAt) } : {}),
    };
    cache.set(userKey, entry);
    return check(entry, apiKey);
  };

  return (apiKey, userKey) => {
    const found = cache.getAllowingStale(userKey);
    if (!found) return lookup(apiKey, userKey);
    const { value: known, stale } = found;
    if (!stale) return check(known, apiKey);
    // Nothing but this process (whose changes come as events) wrote since the row was read.
    if (known.version !== undefined && known.version === deps.db.externalVersion()) {
      cache.set(userKey, known);
      return check(known, apiKey);
    }
    return lookup(apiKey, userKey);
  };
}
