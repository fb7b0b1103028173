import { createHash } from "node:crypto";

/**
 * Secrets at rest (docs/decisions/0105): what a module needs to keep a secret in the store
 * encrypted. The implementation (AES-256-GCM under the deployment's secrets key) is
 * src/infra/secrets/secret-box.ts; the key is resolved once at start-up (src/runtime.ts).
 */
export interface SecretBox {
  /** The short id of the key new values are sealed under (a hash of it, never the key). */
  readonly keyId: string;
  /** Every key id this box can open: the current key, then the previous one if configured. */
  readonly keyIds: readonly string[];
  /**
   * Encrypts `plain` as `enc:v1:<key id>:<iv>:<tag>:<ciphertext>`. `context` (e.g. the row's
   * key) is authenticated, not stored: a value copied to another row does not open there.
   */
  seal(plain: string, context: string): string;
  /** Decrypts a sealed value; throws SecretsError (unknown key, malformed, altered). */
  open(sealed: string, context: string): string;
}

/** The key id a stored value is sealed under, or undefined for a value stored before 0105 (plain). */
export function sealedKeyId(stored: string): string | undefined {
  if (!stored.startsWith(SEALED_PREFIX)) return undefined;
  return stored.slice(SEALED_PREFIX.length).split(":", 1)[0];
}

export const SEALED_PREFIX = "enc:v1:";

export type SecretsErrorReason = "unknown-key" | "malformed" | "altered";

/** A sealed value that cannot be opened; the message names the key id when that is the cause. */
export class SecretsError extends Error {
  constructor(
    readonly reason: SecretsErrorReason,
    message: string,
    /** For `unknown-key`: the id of the key that would open it. */
    readonly keyId?: string,
  ) {
    super(message);
    this.name = "SecretsError";
  }
}

/** A secrets key is 32 random bytes, written in base64 (`openssl rand -base64 32`). */
export const SECRETS_KEY_BYTES = 32;

/**
 * The key written in `text` (standard or URL-safe base64, surrounding white space ignored), or
 * the rest of a sentence saying what is wrong with it; never echoes the text (it is a secret).
 */
export function decodeSecretsKey(text: string): Buffer | string {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    return `must be ${SECRETS_KEY_BYTES} random bytes in base64, e.g. the output of "openssl rand -base64 32" (it holds characters that are not base64)`;
  }
  const key = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (key.length !== SECRETS_KEY_BYTES) {
    return `must be ${SECRETS_KEY_BYTES} random bytes in base64, e.g. the output of "openssl rand -base64 32" (it decodes to ${key.length} bytes)`;
  }
  return key;
}

/** The key's short public name: 8 hex digits of a domain-separated SHA-256 of it. */
export function secretsKeyId(key: Buffer): string {
  return createHash("sha256").update("social-trading-api secrets key id\0").update(key).digest("hex").slice(0, 8);
}
