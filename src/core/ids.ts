import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

export const newId = () => randomUUID();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID_RE.test(value);

/** A high-entropy secret (256 bits) with a readable prefix, e.g. `sta_uk_…`. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

/**
 * Keys are 256-bit random secrets, so a fast hash is enough (no KDF: there is nothing to
 * brute-force); only the hash is stored.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
