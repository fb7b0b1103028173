import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = join(import.meta.dirname, "../../bin/social-trading-api.js");

/** Runs the real CLI as a user would; resolves even on a non-zero exit. */
async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, LOG_LEVEL: "warn", ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("the social-trading-api CLI", () => {
  let dir: string;
  let db: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sta-cli-"));
    db = join(dir, "cli.db");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("explains itself with --help", async () => {
    const top = await cli(["--help"]);
    expect(top.code).toBe(0);
    for (const command of ["serve", "migrate", "seed", "users", "keys", "--database", "--json"]) {
      expect(top.stdout).toContain(command);
    }
    const keys = await cli(["keys", "create", "--help"]);
    expect(keys.stdout).toContain("--scopes");
    expect(keys.stdout).toContain("--environment");
  });

  it("migrates, creates a user, issues, lists and revokes key pairs, in JSON", async () => {
    const migrated = await cli(["migrate", "--database", db, "--json"]);
    expect(migrated.code).toBe(0);
    expect(JSON.parse(migrated.stdout).applied).toContain("001-foundation");

    const created = await cli([
      "users",
      "create",
      "--username",
      "ada",
      "--first-name",
      "Ada",
      "--database",
      db,
      "--json",
    ]);
    expect(created.code).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(typeof user.id).toBe("string");
    expect(Number.isInteger(user.gcid)).toBe(true);
    expect(user).toMatchObject({ username: "ada", firstName: "Ada" });

    const issued = await cli([
      "keys",
      "create",
      "--user",
      "ada",
      "--scopes",
      "feed:read,service-public:notifications:read",
      "--database",
      db,
      "--json",
    ]);
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout);
    expect(key.apiKey).toMatch(/^sta_ak_/);
    expect(key.userKey).toMatch(/^sta_uk_/);
    expect(key.scopes).toEqual(["service-public:feed:read", "service-public:notifications:read"]);

    const listed = JSON.parse(
      (await cli(["keys", "list", "--user", String(user.gcid), "--database", db, "--json"])).stdout,
    );
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: key.id, revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(key.userKey);

    const revoked = JSON.parse((await cli(["keys", "revoke", key.id, "--database", db, "--json"])).stdout);
    expect(revoked.revokedAt).not.toBeNull();
  });

  it("refuses bad input with a clear message and a non-zero exit", async () => {
    const badScope = await cli(["keys", "create", "--user", "ada", "--scopes", "feed:fly", "--database", db]);
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain("Unknown scope: feed:fly");

    const noUser = await cli(["keys", "list", "--user", "nobody", "--database", db, "--json"]);
    expect(noUser.code).toBe(1);
    expect(JSON.parse(noUser.stdout).error.code).toBe("NotFound");

    const taken = await cli(["users", "create", "--username", "ADA", "--database", db]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("taken");

    const badConfig = await cli(["serve", "--database", db], { PORT: "eighty", LOG_LEVEL: "loud" });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain("PORT must be an integer");
    expect(badConfig.stderr).toContain("LOG_LEVEL must be one of");
  });
});

describe("serve", () => {
  let child: ChildProcess | undefined;
  let dir: string;
  afterAll(() => {
    child?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("seeds, prints working credentials, and shuts down gracefully on SIGTERM", async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-serve-"));
    const db = join(dir, "serve.db");
    child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--database", db, "--json"], {
      env: { ...process.env, LOG_LEVEL: "warn" },
    });
    const banner = await new Promise<{ baseUrl: string; docsUrl: string; demo: { apiKey: string; userKey: string } }>(
      (resolve, reject) => {
        let out = "";
        child!.stdout!.on("data", (chunk) => {
          out += chunk;
          const line = out.split("\n").find((l) => l.includes('"baseUrl"'));
          if (line === undefined) return;
          try {
            resolve(JSON.parse(out.slice(out.indexOf("{"), out.lastIndexOf("}") + 1)));
          } catch {
            // the JSON document is not complete yet
          }
        });
        child!.once("exit", (code) => reject(new Error(`serve exited early with ${code}`)));
      },
    );
    expect(banner.docsUrl).toBe(`${banner.baseUrl}/docs`);

    const me = await fetch(`${banner.baseUrl}/api/v1/me`, {
      headers: { "x-api-key": banner.demo.apiKey, "x-user-key": banner.demo.userKey },
    });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe("demo");
    const notes = await fetch(`${banner.baseUrl}/api/v1/notifications/messages`, {
      headers: {
        "x-api-key": banner.demo.apiKey,
        "x-user-key": banner.demo.userKey,
        "x-request-id": crypto.randomUUID(),
      },
    });
    expect(((await notes.json()) as { messages: unknown[] }).messages.length).toBeGreaterThan(0);

    // A request in flight when SIGTERM arrives still gets its answer.
    const url = new URL(`${banner.baseUrl}/api/v1/notifications/messages`);
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = request(
        {
          method: "PATCH",
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: {
            "content-type": "application/json",
            "content-length": 2,
            "x-api-key": banner.demo.apiKey,
            "x-user-key": banner.demo.userKey,
            "x-request-id": crypto.randomUUID(),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write("{");
      setTimeout(() => {
        child!.kill("SIGTERM");
        setTimeout(() => req.end("}"), 300);
      }, 200);
    });
    expect(await inFlight).toBe(204);
    const exitCode = await new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
    expect(exitCode).toBe(0);
    // A clean close checkpoints SQLite's write-ahead log and removes it.
    expect(existsSync(`${db}-wal`)).toBe(false);
  });
});
