import { randomBytes, type webcrypto } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { requireSystem } from "../../core/access.js";
import { actorLabel } from "../../core/audit.js";
import { type Clock, isoNow } from "../../core/clock.js";
import type { Db } from "../../infra/db/database.js";
import { recordAudit } from "../audit/record-audit.js";
import { type Ctx, type Deps, transact } from "../context.js";
import { oauthRepository, type SigningKeyRow } from "./oauth.repository.js";

export const SIGNING_ALG = "ES256";
/** Operator tokens (`tokens create --ttl`) may live this long at most; see MAX_TOKEN_TTL use. */
export const MAX_TOKEN_TTL = 86_400;
/**
 * A retired key stays published (and trusted) this long, so every token it signed, including
 * ones signed by an instance whose cache had not yet seen the rotation, can still be verified.
 */
export const RETIRED_KEY_GRACE_SECONDS = MAX_TOKEN_TTL + 5 * 60;
type CryptoKey = webcrypto.CryptoKey;
/** A drop made by a process on another bus (the CLI without REDIS_URL) is seen within this. */
const CACHE_MS = 1_000;
const RELOAD_ON_MISS_MS = 5_000;

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
  createdAt: string;
  retiredAt: string | null;
}

declare module "../context.js" {
  interface Deps {
    /** OAuth: the signing keys of our tokens, read from the store and kept for a minute. */
    readonly signingKeys: KeyStore;
  }
}

/**
 * The signing keys, kept in the database so they survive restarts and are shared by every
 * instance; cached here for a second (a re-read imports only new keys), emptied at once by
 * SigningKeysDropped, and re-read at once when a token names an unknown kid.
 */
export class KeyStore {
  private keys: SigningKey[] = [];
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  private creating: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private async load(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const rows = await oauthRepository(this.db.kysely).listSigningKeys();
        const known = new Map(this.keys.map((k) => [k.kid, k]));
        this.keys = await Promise.all(rows.map(async (row) => reuse(known.get(row.kid), row) ?? importRow(row)));
        this.loadedAt = Date.now();
      } finally {
        this.loading = undefined;
      }
    })();
    await this.loading;
  }

  private async fresh(): Promise<SigningKey[]> {
    if (Date.now() - this.loadedAt > CACHE_MS) await this.load();
    return this.keys;
  }

  invalidate(): void {
    this.loadedAt = Number.NEGATIVE_INFINITY;
  }

  /** The newest active key; the first one is made on first use. */
  async current(): Promise<SigningKey> {
    const active = (await this.fresh()).find((k) => k.retiredAt === null);
    if (active) return active;
    // Concurrent first requests make one key (other instances may add theirs: all are trusted).
    this.creating ??= (async () => {
      try {
        await oauthRepository(this.db.kysely).insertSigningKey(await newKeyRow(isoNow(this.clock)));
        await this.load();
      } finally {
        this.creating = undefined;
      }
    })();
    await this.creating;
    return this.keys.find((k) => k.retiredAt === null)!;
  }

  /** Keys that may verify a token now: active ones and recently retired ones. */
  async trusted(): Promise<SigningKey[]> {
    const now = this.clock.now().getTime();
    return (await this.fresh()).filter(
      (k) => k.retiredAt === null || Date.parse(k.retiredAt) + RETIRED_KEY_GRACE_SECONDS * 1000 > now,
    );
  }

  async byKid(kid: string): Promise<SigningKey | undefined> {
    const found = (await this.trusted()).find((k) => k.kid === kid);
    if (found || Date.now() - this.loadedAt < RELOAD_ON_MISS_MS) return found;
    await this.load();
    return (await this.trusted()).find((k) => k.kid === kid);
  }
}

function reuse(existing: SigningKey | undefined, row: SigningKeyRow): SigningKey | undefined {
  return existing ? { ...existing, retiredAt: row.retiredAt } : undefined;
}

async function importRow(row: SigningKeyRow): Promise<SigningKey> {
  const publicJwk = JSON.parse(row.publicJwk) as JWK;
  return {
    kid: row.kid,
    privateKey: (await importJWK(JSON.parse(row.privateJwk) as JWK, row.alg)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, row.alg)) as CryptoKey,
    publicJwk,
    createdAt: row.createdAt,
    retiredAt: row.retiredAt,
  };
}

async function newKeyRow(createdAt: string): Promise<SigningKeyRow> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = randomBytes(12).toString("base64url");
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
  return {
    kid,
    alg: SIGNING_ALG,
    privateJwk: JSON.stringify(privateJwk),
    publicJwk: JSON.stringify(publicJwk),
    createdAt,
    retiredAt: null,
  };
}

/** The JWKS document: the public halves of every trusted key. */
export async function publishedKeys(deps: Deps): Promise<{ keys: JWK[] }> {
  await deps.signingKeys.current();
  return { keys: (await deps.signingKeys.trusted()).map((k) => k.publicJwk) };
}

export interface SigningKeySummary {
  kid: string;
  alg: string;
  createdAt: string;
  retiredAt: string | null;
  status: "active" | "retired";
}

const summary = (row: SigningKeyRow): SigningKeySummary => ({
  kid: row.kid,
  alg: row.alg,
  createdAt: row.createdAt,
  retiredAt: row.retiredAt,
  status: row.retiredAt === null ? "active" : "retired",
});

export async function listSigningKeys(ctx: Ctx): Promise<SigningKeySummary[]> {
  requireSystem(ctx.actor);
  return (await oauthRepository(ctx.db.kysely).listSigningKeys()).map(summary);
}

/**
 * Makes a new key the signing key. The previous ones stay trusted for RETIRED_KEY_GRACE_SECONDS,
 * unless `dropPrevious` (a suspected leak): then they are deleted and their tokens stop working at
 * once, in every instance that shares the event bus (SigningKeysDropped); an instance on another
 * bus re-reads its key set within CACHE_MS.
 */
export async function rotateSigningKey(ctx: Ctx, options: { dropPrevious?: boolean } = {}): Promise<SigningKeySummary> {
  requireSystem(ctx.actor);
  const now = isoNow(ctx.clock);
  const row = await newKeyRow(now);
  await transact(ctx, async (trx, record) => {
    const repo = oauthRepository(trx);
    await repo.retireSigningKeys(now);
    await repo.insertSigningKey(row);
    const actor = actorLabel(ctx.actor);
    await recordAudit(
      ctx,
      { action: "signing-key.rotated", outcome: "success", actor, details: { kid: row.kid } },
      trx,
    );
    if (options.dropPrevious) {
      const dropped = await repo.deleteSigningKeysExcept(row.kid);
      record({ type: "SigningKeysDropped", keptKid: row.kid, occurredAt: now });
      const details = { keptKid: row.kid, dropped };
      await recordAudit(ctx, { action: "signing-keys.dropped", outcome: "success", actor, details }, trx);
    }
  });
  ctx.signingKeys.invalidate();
  return summary(row);
}

/** A drop of signing keys, wherever it was made, empties every instance's key set at once. */
export function registerSigningKeySubscribers(deps: Deps): void {
  deps.bus.subscribeEverywhere("SigningKeysDropped", () => deps.signingKeys.invalidate());
}
