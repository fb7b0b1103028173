/**
 * Secrets at rest (docs/decisions/0105): NODE_ENV (production mode), SECRETS_KEY or
 * SECRETS_KEY_FILE (the key that seals secrets in the store), SECRETS_KEY_PREVIOUS or
 * SECRETS_KEY_PREVIOUS_FILE (the key it replaces, read during a rotation).
 */

import { readFileSync } from "node:fs";
import { decodeSecretsKey, secretsKeyId } from "../core/secrets.js";
import type { Pick } from "./shared.js";

export interface ConfiguredKey {
  key: Buffer;
  /** Its short id (a hash): safe to print and log. */
  id: string;
  /** The setting it came from: `SECRETS_KEY`, or `SECRETS_KEY_FILE (/run/secrets/sta)`. */
  source: string;
}

export interface SecretsSettings {
  /** NODE_ENV=production: a missing SECRETS_KEY is refused, nothing is generated. */
  production: boolean;
  /** SECRETS_KEY / SECRETS_KEY_FILE. Unset outside production: a key is generated (src/runtime.ts). */
  current: ConfiguredKey | undefined;
  /** SECRETS_KEY_PREVIOUS / SECRETS_KEY_PREVIOUS_FILE: still opens, never seals. */
  previous: ConfiguredKey | undefined;
}

/** Shown wherever a key is asked for: how to make one. */
export const MAKE_A_KEY =
  "e.g. SECRETS_KEY=$(openssl rand -base64 32), or SECRETS_KEY_FILE naming a file that holds it";

function readKey(pick: Pick, name: string, problems: string[]): ConfiguredKey | undefined {
  const inline = pick(undefined, name);
  const file = pick(undefined, `${name}_FILE`);
  if (inline !== undefined && file !== undefined) {
    problems.push(`${name} and ${name}_FILE are both set: set one of them`);
    return undefined;
  }
  if (inline === undefined && file === undefined) return undefined;
  let text = inline;
  let source = name;
  if (file !== undefined) {
    source = `${name}_FILE (${file})`;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = (error as { code?: string }).code ?? String(error);
      problems.push(`${name}_FILE names "${file}", which cannot be read (${code})`);
      return undefined;
    }
  }
  const key = decodeSecretsKey(text ?? "");
  if (typeof key === "string") {
    problems.push(`${file !== undefined ? `The key in ${name}_FILE ("${file}")` : name} ${key}`);
    return undefined;
  }
  // Not enumerable: a config printed or logged whole never shows the key.
  return Object.defineProperty({ id: secretsKeyId(key), source }, "key", {
    value: key,
    enumerable: false,
  }) as ConfiguredKey;
}

export function parseSecretsSettings(pick: Pick, problems: string[]): SecretsSettings {
  const production = (pick(undefined, "NODE_ENV") ?? "").trim().toLowerCase() === "production";
  const current = readKey(pick, "SECRETS_KEY", problems);
  const previous = readKey(pick, "SECRETS_KEY_PREVIOUS", problems);
  const currentSet = pick(undefined, "SECRETS_KEY") !== undefined || pick(undefined, "SECRETS_KEY_FILE") !== undefined;
  if (production && !currentSet) {
    problems.push(`SECRETS_KEY or SECRETS_KEY_FILE must be set in production (NODE_ENV=production): ${MAKE_A_KEY}`);
  }
  if (previous && !currentSet) {
    problems.push(
      "SECRETS_KEY_PREVIOUS is read only beside SECRETS_KEY or SECRETS_KEY_FILE (the key that replaces it): set that too",
    );
  }
  if (current && previous && current.id === previous.id) {
    problems.push(
      `SECRETS_KEY_PREVIOUS is the same key as SECRETS_KEY (key id ${current.id}): set SECRETS_KEY to the new key, or remove SECRETS_KEY_PREVIOUS`,
    );
  }
  return { production, current, previous };
}
