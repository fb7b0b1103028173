import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { SecretsError, sealedKeyId, secretsKeyId } from "../../src/core/secrets.js";
import { loadOrCreateKeyFile } from "../../src/infra/secrets/key-file.js";
import { createSecretBox } from "../../src/infra/secrets/secret-box.js";

const key = () => randomBytes(32);

/** The error `work` throws, or a failure when it throws none. */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error, none was thrown");
}

describe("the secret box (AES-256-GCM, enc:v1:<key id>:<iv>:<tag>:<ciphertext>)", () => {
  const k1 = key();
  const box = createSecretBox(k1);

  it("round-trips any text, and never stores it readable", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.string({ maxLength: 40 }), (plain, context) => {
        const sealed = box.seal(plain, context);
        expect(sealed).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]*$/);
        expect(sealedKeyId(sealed)).toBe(box.keyId);
        if (plain.length >= 4) expect(sealed).not.toContain(plain);
        expect(box.open(sealed, context)).toBe(plain);
      }),
    );
  });

  it("fails on any altered character of the stored text", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.nat(),
        fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_:=+/ "),
        (plain, at, replacement) => {
          const sealed = box.seal(plain, "row");
          const i = at % sealed.length;
          fc.pre(sealed[i] !== replacement);
          const tampered = sealed.slice(0, i) + replacement + sealed.slice(i + 1);
          expect(thrown(() => box.open(tampered, "row"))).toBeInstanceOf(SecretsError);
        },
      ),
    );
  });

  it("fails on any flipped bit of the iv, the tag or the ciphertext", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.constantFrom(1, 2, 3),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        (plain, part, at, bit) => {
          const parts = box.seal(plain, "row").split(":");
          const bytes = Buffer.from(parts[2 + part]!, "base64url");
          bytes[at % bytes.length]! ^= 1 << bit;
          parts[2 + part] = bytes.toString("base64url");
          const error = thrown(() => box.open(parts.join(":"), "row"));
          expect(error).toBeInstanceOf(SecretsError);
          expect((error as SecretsError).reason).toBe("altered");
        },
      ),
    );
  });

  it("binds a value to its context: copied to another row it does not open", () => {
    const sealed = box.seal("secret", "oauth_signing_keys:a");
    expect((thrown(() => box.open(sealed, "oauth_signing_keys:b")) as SecretsError).reason).toBe("altered");
  });

  it("refuses a truncated tag rather than checking fewer bits", () => {
    const parts = box.seal("secret", "row").split(":");
    parts[4] = Buffer.from(parts[4]!, "base64url").subarray(0, 4).toString("base64url");
    expect((thrown(() => box.open(parts.join(":"), "row")) as SecretsError).reason).toBe("malformed");
  });

  it("a wrong key is a clear error naming the key id needed, not a crypto failure", () => {
    const other = createSecretBox(key());
    const error = thrown(() => other.open(box.seal("secret", "row"), "row")) as SecretsError;
    expect(error).toBeInstanceOf(SecretsError);
    expect(error.reason).toBe("unknown-key");
    expect(error.keyId).toBe(secretsKeyId(k1));
    expect(error.message).toContain(`encrypted under secrets key ${secretsKeyId(k1)}, which is not configured`);
    expect(error.message).toContain("SECRETS_KEY");
  });

  it("opens with the previous key during a rotation, and seals only with the current one", () => {
    const k2 = key();
    const rotating = createSecretBox(k2, k1);
    expect(rotating.keyId).toBe(secretsKeyId(k2));
    expect(rotating.keyIds).toEqual([secretsKeyId(k2), secretsKeyId(k1)]);
    expect(rotating.open(box.seal("old", "row"), "row")).toBe("old");
    const resealed = rotating.seal("old", "row");
    expect(sealedKeyId(resealed)).toBe(secretsKeyId(k2));
    expect((thrown(() => box.open(resealed, "row")) as SecretsError).reason).toBe("unknown-key");
  });

  it("seals the same text differently every time (a fresh IV)", () => {
    expect(box.seal("same", "row")).not.toBe(box.seal("same", "row"));
  });
});

describe("secrets settings", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-secrets-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as ConfigError).problems;
    }
  };

  it("production mode (NODE_ENV=production) without a key is refused in one sentence naming the settings", () => {
    expect(problemsOf({ NODE_ENV: "production" })).toEqual([
      "SECRETS_KEY or SECRETS_KEY_FILE must be set in production (NODE_ENV=production): e.g. SECRETS_KEY=$(openssl rand -base64 32), or SECRETS_KEY_FILE naming a file that holds it",
    ]);
    const production = loadConfig({ NODE_ENV: "production", SECRETS_KEY: key().toString("base64") });
    expect(production.production).toBe(true);
    expect(loadConfig({ NODE_ENV: "test" }).production).toBe(false);
    expect(loadConfig({}).secrets.current).toBeUndefined();
  });

  it("reads the key inline or from a file, standard or URL-safe base64, and names it by its id", () => {
    const k = key();
    expect(loadConfig({ SECRETS_KEY: k.toString("base64url") }).secrets.current).toMatchObject({
      id: secretsKeyId(k),
      source: "SECRETS_KEY",
    });
    // A config printed or logged whole never shows the key.
    const printed = JSON.stringify(loadConfig({ SECRETS_KEY: k.toString("base64") }));
    expect(printed).toContain(secretsKeyId(k));
    for (const form of [k.toString("base64"), k.toString("hex"), JSON.stringify([...k])]) {
      expect(printed).not.toContain(form);
    }
    const file = join(dir, "key");
    writeFileSync(file, `${k.toString("base64")}\n`);
    const fromFile = loadConfig({ SECRETS_KEY_FILE: file }).secrets.current!;
    expect(fromFile.key.equals(k)).toBe(true);
    expect(fromFile.source).toBe(`SECRETS_KEY_FILE (${file})`);
  });

  it("refuses a bad key with one sentence that never repeats the value", () => {
    const short = randomBytes(16).toString("base64");
    const problems = problemsOf({ SECRETS_KEY: short, SECRETS_KEY_PREVIOUS_FILE: join(dir, "nope") });
    expect(problems).toEqual([
      'SECRETS_KEY must be 32 random bytes in base64, e.g. the output of "openssl rand -base64 32" (it decodes to 16 bytes)',
      `SECRETS_KEY_PREVIOUS_FILE names "${join(dir, "nope")}", which cannot be read (ENOENT)`,
    ]);
    expect(problems.join(" ")).not.toContain(short);
    expect(problemsOf({ SECRETS_KEY: "not a key!" })).toEqual([
      'SECRETS_KEY must be 32 random bytes in base64, e.g. the output of "openssl rand -base64 32" (it holds characters that are not base64)',
    ]);
  });

  it("refuses both forms at once, a previous key alone, and a previous key equal to the current one", () => {
    const k = key().toString("base64");
    expect(problemsOf({ SECRETS_KEY: k, SECRETS_KEY_FILE: "/x" })).toEqual([
      "SECRETS_KEY and SECRETS_KEY_FILE are both set: set one of them",
    ]);
    expect(problemsOf({ SECRETS_KEY_PREVIOUS: k })).toEqual([
      "SECRETS_KEY_PREVIOUS is read only beside SECRETS_KEY or SECRETS_KEY_FILE (the key that replaces it): set that too",
    ]);
    const id = secretsKeyId(Buffer.from(k, "base64"));
    expect(problemsOf({ SECRETS_KEY: k, SECRETS_KEY_PREVIOUS: k })).toEqual([
      `SECRETS_KEY_PREVIOUS is the same key as SECRETS_KEY (key id ${id}): set SECRETS_KEY to the new key, or remove SECRETS_KEY_PREVIOUS`,
    ]);
  });
});

describe("the generated key file", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-key-file-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is made with mode 0600 in a folder made as needed, and reused ever after", () => {
    const path = join(dir, "nested", "data", "secrets.key");
    const made = loadOrCreateKeyFile(path);
    expect(made.created).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "nested", "data")).mode & 0o777).toBe(0o700);
    expect(made.looseMode).toBeUndefined();
    const text = readFileSync(path, "utf8");
    const again = loadOrCreateKeyFile(path);
    expect(again.created).toBe(false);
    expect(again.key.equals(made.key)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("reports a file others may read, and refuses one that holds no key, naming it", () => {
    const path = join(dir, "loose.key");
    writeFileSync(path, `${key().toString("base64")}\n`);
    chmodSync(path, 0o644);
    expect(loadOrCreateKeyFile(path).looseMode).toBe(0o644);
    const broken = join(dir, "broken.key");
    writeFileSync(broken, "hello\n", { mode: 0o600 });
    expect(() => loadOrCreateKeyFile(broken)).toThrow(`the secrets key file ${broken} must be 32 random bytes`);
  });
});
