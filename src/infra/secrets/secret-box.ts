import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { SEALED_PREFIX, SECRETS_KEY_BYTES, type SecretBox, SecretsError, secretsKeyId } from "../../core/secrets.js";

/** AES-256-GCM: a 32-byte key, a fresh 96-bit IV per value, the full 128-bit tag. */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = "aes-256-gcm";

/** Strict base64url: a part that does not re-encode to itself (stray characters, spare bits) is refused. */
function decodePart(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : undefined;
}

/**
 * A SecretBox over the current key and, during a rotation, the previous one (which only opens).
 * The header `enc:v1:<key id>` and the caller's context are authenticated with the value.
 */
export function createSecretBox(current: Buffer, previous?: Buffer): SecretBox {
  for (const key of [current, previous]) {
    if (key && key.length !== SECRETS_KEY_BYTES) throw new Error(`a secrets key must be ${SECRETS_KEY_BYTES} bytes`);
  }
  const keys = new Map<string, Buffer>([[secretsKeyId(current), Buffer.from(current)]]);
  if (previous) {
    const id = secretsKeyId(previous);
    if (!keys.has(id)) keys.set(id, Buffer.from(previous));
  }
  const keyId = secretsKeyId(current);
  const aad = (header: string, context: string) => Buffer.from(`${header}\0${context}`, "utf8");

  return {
    keyId,
    keyIds: [...keys.keys()],
    seal(plain, context) {
      const header = `${SEALED_PREFIX}${keyId}`;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, keys.get(keyId)!, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(header, context));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [header, iv.toString("base64url"), tag.toString("base64url"), body.toString("base64url")].join(":");
    },
    open(sealed, context) {
      if (!sealed.startsWith(SEALED_PREFIX)) {
        throw new SecretsError("malformed", `the value is not sealed (it does not start with ${SEALED_PREFIX})`);
      }
      const parts = sealed.slice(SEALED_PREFIX.length).split(":");
      if (parts.length !== 4)
        throw new SecretsError("malformed", "the sealed value does not have 4 parts after enc:v1:");
      const [id, ivText, tagText, bodyText] = parts as [string, string, string, string];
      const key = keys.get(id);
      if (!key) {
        const known = [...keys.keys()].join(" and ");
        throw new SecretsError(
          "unknown-key",
          `it is encrypted under secrets key ${id}, which is not configured (this server has ${known}): set SECRETS_KEY or SECRETS_KEY_PREVIOUS to the key whose id is ${id}`,
          id,
        );
      }
      const iv = decodePart(ivText);
      const tag = decodePart(tagText);
      const body = decodePart(bodyText);
      if (iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || body === undefined) {
        throw new SecretsError("malformed", `the value sealed under secrets key ${id} is malformed`);
      }
      try {
        const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(`${SEALED_PREFIX}${id}`, context));
        decipher.setAuthTag(tag);
        const plain = Buffer.concat([decipher.update(body), decipher.final()]);
        return new TextDecoder("utf-8", { fatal: true }).decode(plain);
      } catch {
        throw new SecretsError(
          "altered",
          `the value sealed under secrets key ${id} does not decrypt: it was altered, or belongs to another row`,
        );
      }
    },
  };
}
