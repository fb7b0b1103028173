import { randomBytes } from "node:crypto";
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { decodeSecretsKey, SECRETS_KEY_BYTES } from "../../core/secrets.js";

/** The name of the key a server generates into its data folder when none is configured. */
export const GENERATED_KEY_FILE = "secrets.key";

export interface KeyFile {
  key: Buffer;
  path: string;
  /** True when this call made the file. */
  created: boolean;
  /** The file's permission bits when anyone but its owner may read or write it (0o644), else undefined. */
  looseMode: number | undefined;
}

/**
 * The key in `path`, made first when the file does not exist: 32 random bytes in base64, mode
 * 0600, its folder made (0700) as needed. Several processes starting at once agree on one key:
 * each writes its candidate to a file of its own and links it into place; a link that finds the
 * file already there reads that one instead.
 */
export function loadOrCreateKeyFile(path: string): KeyFile {
  const existing = readKeyFile(path);
  if (existing) return existing;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const candidate = join(dirname(path), `.${GENERATED_KEY_FILE}.${process.pid}.${randomBytes(4).toString("hex")}`);
  writeFileSync(candidate, `${randomBytes(SECRETS_KEY_BYTES).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  try {
    chmodSync(candidate, 0o600);
    linkSync(candidate, path);
    return { ...readKeyFile(path)!, created: true };
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
    return readKeyFile(path)!;
  } finally {
    unlinkSync(candidate);
  }
}

function readKeyFile(path: string): KeyFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw new Error(`cannot read the secrets key file ${path} (${(error as { code?: string }).code ?? error})`);
  }
  const key = decodeSecretsKey(text);
  if (typeof key === "string") {
    throw new Error(
      `the secrets key file ${path} ${key}: restore it from a backup, or set SECRETS_KEY (a new key cannot open what the old one sealed)`,
    );
  }
  const mode = statSync(path).mode & 0o777;
  return { key, path, created: false, looseMode: mode & 0o077 ? mode : undefined };
}
