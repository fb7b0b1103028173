import { randomBytes, type webcrypto } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { requireSystem } from "../../core/access.js";
import { actorLabel } from "../../core/audit.js";
import { type Clock, isoNow } from "../../core/clock.js";
import { type SecretBox, SecretsError, sealedKeyId } from "../../core/secrets.js";
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
  /** Undefined when this server cannot open the stored private half: `unreadable` says why. */
  privateKey: CryptoKey | undefined;
  unreadable: SecretsError | undefined;
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
 * SigningKeysDropped, and re-read at once when a token names an unknown kid. Private halves are
 * stored sealed by `secrets` (0105); verifying needs only the public half, so a key this server
 * cannot open still verifies the tokens it signed, and is never chosen to sign.
 */
export class KeyStore {
  private keys: SigningKey[] = [];
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  private creating: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
  ) {}

  private async load(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const rows = await oauthRepository(this.db.kysely).listSigningKeys();
        const known = new Map(this.keys.map((k) => [k.kid, k]));
        this.keys = await Promise.all(
          rows.map(async (row) => reuse(known.get(row.kid), row) ?? importRow(row, this.secrets)),
        );
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

  /**
   * The newest active key this server can open; the first one is made on first use. Active keys
   * that none of our secrets keys opens are an error naming the key id needed, not a new key.
   */
  async current(): Promise<SigningKey & { privateKey: CryptoKey }> {
    const found = usable(await this.fresh(), this.secrets);
    if (found) return found;
    // Concurrent first requests make one key (other instances may add theirs: all are trusted).
    this.creating ??= (async () => {
      try {
        await oauthRepository(this.db.kysely).insertSigningKey(await newKeyRow(isoNow(this.clock), this.secrets));
        await this.load();
      } finally {
        this.creating = undefined;
      }
    })();
    await this.creating;
    return usable(this.keys, this.secrets)!;
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

/**
 * The newest active key we can sign with; undefined when there is no active key. Active keys
 * that none of them opens: the error names the secrets key id needed.
 */
function usable(keys: SigningKey[], secrets: SecretBox): (SigningKey & { privateKey: CryptoKey }) | undefined {
  const active = keys.filter((k) => k.retiredAt === null);
  const found = active.find((k): k is SigningKey & { privateKey: CryptoKey } => k.privateKey !== undefined);
  if (found || active.length === 0) return found;
  throw unreadableKeys(active, secrets.keyIds);
}

/** One sentence for keys this server cannot open: which kids, under which secrets key ids. */
export function unreadableKeys(
  keys: readonly Pick<SigningKey, "kid" | "unreadable">[],
  have: readonly string[],
): SecretsError {
  const first = keys[0]?.unreadable;
  const kids = keys.map((k) => k.kid).join(", ");
  const needed = [...new Set(keys.map((k) => k.unreadable?.keyId).filter((id) => id !== undefined))];
  if (needed.length > 0) {
    return new SecretsError(
      "unknown-key",
      `the OAuth signing key${keys.length > 1 ? "s" : ""} ${kids} ${keys.length > 1 ? "are" : "is"} sealed under secrets key ${needed.join(" and ")}, which this server does not have (it has ${have.join(" and ")}): set SECRETS_KEY (or SECRETS_KEY_PREVIOUS) to it, or, if it is lost, run \`signing-keys rotate --drop-previous\` (tokens those keys signed stop working)`,
      needed[0],
    );
  }
  return new SecretsError(
    first?.reason ?? "malformed",
    `the OAuth signing key ${kids} cannot be opened: ${first?.message}`,
  );
}

function reuse(existing: SigningKey | undefined, row: SigningKeyRow): SigningKey | undefined {
  return existing?.privateKey ? { ...existing, retiredAt: row.retiredAt } : undefined;
}

/** A stored private half: the JWK itself, sealed (0105) or, in a store made before, plain JSON. */
function openPrivateJwk(row: Pick<SigningKeyRow, "kid" | "privateJwk">, secrets: SecretBox): JWK {
  const text =
    sealedKeyId(row.privateJwk) === undefined ? row.privateJwk : secrets.open(row.privateJwk, sealContext(row.kid));
  return JSON.parse(text) as JWK;
}

/** What a sealed private half is bound to: its row. */
const sealContext = (kid: string) => `oauth_signing_keys:${kid}`;

async function importRow(row: SigningKeyRow, secrets: SecretBox): Promise<SigningKey> {
  const publicJwk = JSON.parse(row.publicJwk) as JWK;
  let privateKey: CryptoKey | undefined;
  let unreadable: SecretsError | undefined;
  try {
    privateKey = (await importJWK(openPrivateJwk(row, secrets), row.alg)) as CryptoKey;
  } catch (error) {
    if (!(error instanceof SecretsError)) throw error;
    unreadable = error;
  }
  return {
    kid: row.kid,
    privateKey,
    unreadable,
    publicKey: (await importJWK(publicJwk, row.alg)) as CryptoKey,
    publicJwk,
    createdAt: row.createdAt,
    retiredAt: row.retiredAt,
  };
}

async function newKeyRow(createdAt: string, secrets: SecretBox): Promise<SigningKeyRow> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = randomBytes(12).toString("base64url");
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
  return {
    kid,
    alg: SIGNING_ALG,
    privateJwk: secrets.seal(JSON.stringify(privateJwk), sealContext(kid)),
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
  const row = await newKeyRow(now, ctx.secrets);
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

/** Where a stored private half stands against this server's secrets keys. */
type SealState = "plain" | "current" | "previous" | "unreadable";

function sealState(row: SigningKeyRow, secrets: SecretBox): { state: SealState; keyId?: string; error?: SecretsError } {
  const keyId = sealedKeyId(row.privateJwk);
  if (keyId === undefined) return { state: "plain" };
  try {
    openPrivateJwk(row, secrets);
  } catch (error) {
    if (!(error instanceof SecretsError)) throw error;
    return { state: "unreadable", keyId, error };
  }
  return { state: keyId === secrets.keyId ? "current" : "previous", keyId };
}

export interface SigningKeysCheck {
  /** Keys stored plain (before 0105) that this start sealed under the current secrets key. */
  sealed: string[];
  /** Keys still sealed under the previous secrets key: `signing-keys reencrypt` moves them. */
  underPrevious: string[];
}

/**
 * Run by `serve` before it listens: seals the private halves a store made before 0105 keeps
 * plain, and refuses to start, naming the secrets key id needed, when a key cannot be opened.
 */
export async function prepareSigningKeys(ctx: Ctx): Promise<SigningKeysCheck> {
  requireSystem(ctx.actor);
  const rows = await oauthRepository(ctx.db.kysely).listSigningKeys();
  const states = rows.map((row) => ({ row, ...sealState(row, ctx.secrets) }));
  const unreadable = states.filter((s) => s.state === "unreadable");
  if (unreadable.length > 0) {
    throw unreadableKeys(
      unreadable.map((s) => ({ kid: s.row.kid, unreadable: s.error })),
      ctx.secrets.keyIds,
    );
  }
  const plain = states.filter((s) => s.state === "plain").map((s) => s.row);
  const sealed = plain.length > 0 ? await reseal(ctx, plain, "sealed the signing keys stored plain") : [];
  if (sealed.length > 0) ctx.signingKeys.invalidate();
  return { sealed, underPrevious: states.filter((s) => s.state === "previous").map((s) => s.row.kid) };
}

/** Seals `rows` under the current key in one transaction, with its audit event; the kids it changed. */
async function reseal(
  ctx: Ctx,
  rows: SigningKeyRow[],
  reason: string,
  from: Record<string, string> = {},
  always = false,
) {
  return transact(ctx, async (trx) => {
    const repo = oauthRepository(trx);
    const changed: string[] = [];
    for (const row of rows) {
      const plain = JSON.stringify(openPrivateJwk(row, ctx.secrets));
      if (await repo.replaceSigningKeySecret(row.kid, row.privateJwk, ctx.secrets.seal(plain, sealContext(row.kid)))) {
        changed.push(row.kid);
      }
    }
    if (changed.length > 0 || always) {
      const fromKeys = [...new Set(changed.map((kid) => from[kid] ?? "plain"))].join(",");
      await recordAudit(
        ctx,
        {
          action: "signing-keys.reencrypted",
          outcome: "success",
          actor: actorLabel(ctx.actor),
          details: { keyId: ctx.secrets.keyId, from: fromKeys, count: changed.length, kids: changed.join(","), reason },
        },
        trx,
      );
    }
    return changed;
  });
}

export interface ReencryptReport {
  /** The secrets key every private half is sealed under now. */
  keyId: string;
  /** Each key moved, and what it was sealed under before (`plain` for a store made before 0105). */
  reencrypted: { kid: string; from: string }[];
  /** Keys that already were under the current key. */
  unchanged: string[];
}

/**
 * `signing-keys reencrypt`: seals every private half under the current secrets key, opening the
 * others with the previous key (or reading them plain), in one transaction. A key neither opens
 * stops it before anything is written, naming the secrets key id needed.
 */
export async function reencryptSigningKeys(
  ctx: Ctx,
  onProgress: (step: { kid: string; from: string }) => void = () => {},
): Promise<ReencryptReport> {
  requireSystem(ctx.actor);
  const rows = await oauthRepository(ctx.db.kysely).listSigningKeys();
  const states = rows.map((row) => ({ row, ...sealState(row, ctx.secrets) }));
  const unreadable = states.filter((s) => s.state === "unreadable");
  if (unreadable.length > 0) {
    throw unreadableKeys(
      unreadable.map((s) => ({ kid: s.row.kid, unreadable: s.error })),
      ctx.secrets.keyIds,
    );
  }
  const moving = states.filter((s) => s.state === "plain" || s.state === "previous");
  const from = Object.fromEntries(moving.map((s) => [s.row.kid, s.keyId ?? "plain"]));
  for (const s of moving) onProgress({ kid: s.row.kid, from: from[s.row.kid]! });
  const changed = await reseal(
    ctx,
    moving.map((s) => s.row),
    "signing-keys reencrypt",
    from,
    true,
  );
  ctx.signingKeys.invalidate();
  return {
    keyId: ctx.secrets.keyId,
    reencrypted: changed.map((kid) => ({ kid, from: from[kid]! })),
    unchanged: states.filter((s) => s.state === "current").map((s) => s.row.kid),
  };
}
