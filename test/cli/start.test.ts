import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = join(import.meta.dirname, "../../bin/social-trading-api.js");

/** The environment of a user who set nothing: none of the settings under test leak in from ours. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", ...extra };
  for (const name of ["DATABASE_URL", "PUBLIC_URL", "PORT", "HOST", "REDIS_URL"]) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

/** Runs the real CLI as a user would, in `cwd`; resolves even on a non-zero exit. */
async function cli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: userEnv(options.env),
      cwd: options.cwd,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const expectOneLine = (stderr: string) => {
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
};

describe("the CLI refuses a database setting that makes no sense, before touching anything", {
  timeout: 60_000,
}, () => {
  let cwd: string;
  beforeAll(() => {
    cwd = mkdtempSync(join(tmpdir(), "sta-cwd-"));
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("a URL of another scheme or a typo of postgres://: exit 2, the setting named, no file or folder made", async () => {
    const typo = await cli(["serve", "--port", "0"], { cwd, env: { DATABASE_URL: "postgress://foo" } });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      'DATABASE_URL must be a postgres:// or postgresql:// URL, or the path of a SQLite file (e.g. ./data/social-trading.db), not a "postgress:" address',
    );
    const mysql = await cli(["migrate", "--database", "mysql://foo"], { cwd });
    expect(mysql.code).toBe(2);
    expect(mysql.stderr).toContain(
      "--database must be a postgres:// or postgresql:// URL, or the path of a SQLite file",
    );
    const missing = await cli(["migrate", "--database", "./dta/app.db"], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--database names a SQLite file in the folder "./dta", which does not exist');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("an unreachable PostgreSQL: exit 1 and one line with its address, no stack trace", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const url = `postgres://app:hunter2@127.0.0.1:${port}/app`;
    const human = await cli(["serve", "--port", "0"], { cwd, env: { DATABASE_URL: url } });
    expect(human.code).toBe(1);
    expect(human.stderr).toBe(
      `error: PostgreSQL at 127.0.0.1:${port} is unreachable (connection refused): is the server running, and are the host and port right?\n`,
    );
    expectOneLine(human.stderr);
    const json = await cli(["migrate", "--database", url, "--json"], { cwd });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: "DatabaseUnavailable" });
    expect(json.stdout + json.stderr).not.toContain("hunter2");
  });

  it("on a fresh clone the default ./data is still made", async () => {
    const fresh = await cli(["migrate", "--json"], { cwd });
    expect(fresh.code).toBe(0);
    expect(existsSync(join(cwd, "data", "social-trading.db"))).toBe(true);
  });
});

interface Banner {
  baseUrl: string;
  demo: { apiKey: string; userKey: string };
}

/** `serve --json` as a user runs it; resolves with its banner and what it logged so far. */
function startServer(db: string, port = "0"): { child: ChildProcess; banner: Promise<Banner>; output: () => string } {
  const child = spawn(process.execPath, [BIN, "serve", "--port", port, "--database", db, "--json"], {
    env: userEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (chunk) => {
    out += chunk;
  });
  child.stderr!.on("data", (chunk) => {
    out += chunk;
  });
  const banner = new Promise<Banner>((resolve, reject) => {
    child.stdout!.on("data", () => {
      const start = out.indexOf('{\n  "baseUrl"');
      if (start < 0) return;
      try {
        resolve(JSON.parse(out.slice(start, out.indexOf("\n}\n", start) + 2)));
      } catch {
        // the JSON document is not complete yet
      }
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  return { child, banner, output: () => out };
}

const stopServer = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
};

/** Each CLI run starts Node and opens the store: seconds apiece on a loaded two-core machine. */
describe("serve and the CLI on one store", { timeout: 120_000 }, () => {
  let dir: string;
  let db: string;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sta-start-"));
    db = join(dir, "app.db");
  });
  afterAll(async () => {
    for (const child of children) await stopServer(child);
    rmSync(dir, { recursive: true, force: true });
  });

  const me = (baseUrl: string, headers: Record<string, string>) =>
    fetch(`${baseUrl}/api/v1/me`, { headers: { "x-request-id": crypto.randomUUID(), ...headers } });
  const pairHeaders = (b: Banner) => ({ "x-api-key": b.demo.apiKey, "x-user-key": b.demo.userKey });
  const demoPairs = async () =>
    JSON.parse((await cli(["keys", "list", "--user", "demo", "--database", db, "--json"])).stdout) as {
      appName: string;
      revokedAt: string | null;
    }[];

  let first: ReturnType<typeof startServer>;

  it("agree on the issuer without being told twice; a token of another issuer is refused with that cause, logged", async () => {
    first = startServer(db);
    children.push(first.child);
    const banner = await first.banner;
    // a port other than 8080, and no PUBLIC_URL anywhere
    expect(banner.baseUrl).not.toContain(":8080");

    const minted = await cli(["tokens", "create", "--user", "demo", "--scopes", "user-info:read", "--database", db]);
    expect(minted.code).toBe(0);
    expect(minted.stdout).toContain(`issuer: ${banner.baseUrl} (recorded by the server)`);
    const token = /Bearer (\S+)/.exec(minted.stdout)![1]!;
    const ok = await me(banner.baseUrl, { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);

    const app = await cli([
      "apps",
      "create",
      "--name",
      "Mine",
      "--redirect-uri",
      "http://127.0.0.1/cb",
      "--database",
      db,
      "--json",
    ]);
    expect(JSON.parse(app.stdout)).toMatchObject({
      issuer: banner.baseUrl,
      tokenEndpoint: `${banner.baseUrl}/oauth/token`,
    });

    // PUBLIC_URL given to the CLI wins; the server, which was not told, refuses and says why
    const elsewhere = await cli(
      ["tokens", "create", "--user", "demo", "--scopes", "user-info:read", "--database", db, "--json"],
      {
        env: { PUBLIC_URL: "http://127.0.0.1:1" },
      },
    );
    const refused = await me(banner.baseUrl, { authorization: `Bearer ${JSON.parse(elsewhere.stdout).access_token}` });
    expect(refused.status).toBe(401);
    const cause = `issuer mismatch (token iss http://127.0.0.1:1, expected ${banner.baseUrl})`;
    expect(refused.headers.get("www-authenticate")).toBe(`Bearer error="invalid_token", error_description="${cause}"`);
    expect(((await refused.json()) as { errorMessage: string }).errorMessage).toBe(
      `The bearer token was refused: ${cause}`,
    );
    await expect.poll(() => first.output()).toContain(`"msg":"bearer token refused: ${cause}"`);
    const logged = JSON.parse(
      first
        .output()
        .split("\n")
        .find((l) => l.includes('"bearer token refused'))!,
    );
    // warn: seen at the level this server runs with, and by any operator who keeps warnings
    expect(logged).toMatchObject({ level: 40, cause, reqId: expect.any(String) });
    expect(first.output()).not.toContain(JSON.parse(elsewhere.stdout).access_token);
  });

  it("a start that cannot listen says why in one line and issues no key pair", async () => {
    const before = await demoPairs();
    // The start's pair and, with the sandbox on, the operator's (decision 0149): one of each.
    expect(
      before
        .filter((k) => k.revokedAt === null)
        .map((k) => k.appName)
        .sort(),
    ).toEqual(["npm start", "sandbox operator"]);
    const port = new URL((await first.banner).baseUrl).port;
    const second = await cli(["serve", "--port", port, "--database", db]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `error: 127.0.0.1:${port} is already in use by another program: stop it, or choose another port (--port or PORT)\n`,
    );
    expectOneLine(second.stderr);
    expect(await demoPairs()).toEqual(before);
  });

  it("a restart replaces the previous start's key pair: one live start pair, and the banner's works", async () => {
    const previous = await first.banner;
    await stopServer(first.child);
    const next = startServer(db);
    children.push(next.child);
    const banner = await next.banner;
    expect((await me(banner.baseUrl, pairHeaders(banner))).status).toBe(200);
    expect((await me(banner.baseUrl, pairHeaders(previous))).status).toBe(401);
    const pairs = (await demoPairs()).filter((k) => k.appName === "npm start");
    expect(pairs).toHaveLength(2);
    expect(pairs.filter((k) => k.revokedAt === null)).toHaveLength(1);
    // the issuer moved with the server
    const minted = await cli([
      "tokens",
      "create",
      "--user",
      "demo",
      "--scopes",
      "user-info:read",
      "--database",
      db,
      "--json",
    ]);
    const again = await me(banner.baseUrl, { authorization: `Bearer ${JSON.parse(minted.stdout).access_token}` });
    expect(again.status).toBe(200);
  });
});
