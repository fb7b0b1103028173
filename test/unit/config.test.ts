import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseDatabaseTarget } from "../../src/config.js";

const problemsOf = (env: Record<string, string>, flags = {}) => {
  try {
    loadConfig(env, flags);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
};

describe("loadConfig", () => {
  it("has the documented defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      database: { kind: "sqlite", url: "./data/social-trading.db" },
      logLevel: "info",
      scopePrefix: "service-public",
      bodyLimit: 1048576,
      seed: "auto",
    });
    expect(c.redisUrl).toBeUndefined();
  });

  it("lets flags win over the environment", () => {
    const c = loadConfig({ PORT: "9000", DATABASE_URL: "/tmp/a.db" }, { port: "9100", database: "/tmp/b.db" });
    expect(c.port).toBe(9100);
    expect(c.database.url).toBe("/tmp/b.db");
  });

  it("reports one clear message per bad value, all at once", () => {
    const problems = problemsOf({
      PORT: "eighty",
      LOG_LEVEL: "loud",
      REDIS_URL: "localhost:6379",
      SCOPE_PREFIX: "a b",
      SEED: "maybe",
    });
    expect(problems).toHaveLength(5);
    expect(problems.join("\n")).toMatch(/PORT.*"eighty"/);
    expect(problems.join("\n")).toMatch(/LOG_LEVEL.*"loud"/);
    expect(problems.join("\n")).toMatch(/REDIS_URL/);
    expect(problems.join("\n")).toMatch(/SCOPE_PREFIX/);
    expect(problems.join("\n")).toMatch(/SEED/);
  });

  it("SQLITE_SYNCHRONOUS is normal by default, full on request, and refuses anything else in one sentence", () => {
    expect(loadConfig({}).database.synchronous).toBe("normal");
    expect(loadConfig({ SQLITE_SYNCHRONOUS: "FULL" }).database.synchronous).toBe("full");
    expect(problemsOf({ SQLITE_SYNCHRONOUS: "extra" })).toEqual([
      'SQLITE_SYNCHRONOUS must be normal (safe against a crash of the process) or full (safe against a power loss too) (got "extra")',
    ]);
  });

  it("SQLITE_GROUP_COMMIT is on by default, off on request, and refuses anything else in one sentence", () => {
    expect(loadConfig({}).database.groupCommit).toBe(true);
    expect(loadConfig({ SQLITE_GROUP_COMMIT: "OFF" }).database.groupCommit).toBe(false);
    expect(problemsOf({ SQLITE_GROUP_COMMIT: "sometimes" })).toEqual([
      'SQLITE_GROUP_COMMIT must be on (transactions asked for together share one commit) or off (got "sometimes")',
    ]);
  });

  it("DATABASE_QUERY_TIMEOUT_MS bounds PostgreSQL statements: 30 s by default, refused outside 100 to 600000", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://h/db" }).database.queryTimeoutMs).toBe(30_000);
    expect(
      loadConfig({ DATABASE_URL: "postgres://h/db", DATABASE_QUERY_TIMEOUT_MS: "2500" }).database.queryTimeoutMs,
    ).toBe(2500);
    for (const bad of ["50", "1e4", "ten", "600001"]) {
      expect(problemsOf({ DATABASE_QUERY_TIMEOUT_MS: bad })).toEqual([
        `DATABASE_QUERY_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000 (got "${bad}")`,
      ]);
    }
  });

  it("never echoes a password from a connection URL", () => {
    const problems = problemsOf({ REDIS_URL: "http://user:hunter2@host" });
    expect(problems.join("\n")).not.toContain("hunter2");
  });

  it.each([
    ["postgres://u@h:5432/db", "postgres"],
    ["postgresql://h/db", "postgres"],
    ["./data/x.db", "sqlite"],
    ["sqlite:/tmp/x.db", "sqlite"],
    [":memory:", "sqlite"],
  ])("reads %s as %s", (value, kind) => {
    expect(parseDatabaseTarget(value).kind).toBe(kind);
  });
});

describe("the database setting refuses nonsense", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ["postgress://foo", /not a "postgress:" address .*did you mean postgres:\/\//],
    ["mysql://root@db/app", /not a "mysql:" address/],
    ["sqlite://x.db", /write a SQLite file as sqlite:PATH or just PATH/],
    ["file:x.db", /not a "file:" address .*written \.\/file:x\.db/],
    ["postgres://exa mple/db", /not a valid PostgreSQL URL/],
  ])("refuses %s, naming the setting and what is accepted", (value, why) => {
    for (const [env, flags, setting] of [
      [{ DATABASE_URL: value }, {}, "DATABASE_URL"],
      [{ DATABASE_URL: "./data/x.db" }, { database: value }, "--database"],
    ] as const) {
      const problems = problemsOf(env, flags);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(why);
      expect(problems[0]!.startsWith(`${setting} `)).toBe(true);
      expect(problems[0]).toContain("postgres:// or postgresql:// URL, or the path of a SQLite file");
    }
  });

  it("never echoes the password of a refused URL", () => {
    const [problem] = problemsOf({ DATABASE_URL: "mysql://root:hunter2@db/app" });
    expect(problem).toContain("mysql://root:***@db/app");
    expect(problem).not.toContain("hunter2");
  });

  it("refuses a SQLite file whose folder does not exist, naming the folder, and makes nothing", () => {
    const missing = join(dir, "typo", "deeper");
    const [problem] = problemsOf({}, { database: join(missing, "x.db") });
    expect(problem).toBe(
      `--database names a SQLite file in the folder "${missing}", which does not exist: create it first, or correct the path (got "${join(missing, "x.db")}")`,
    );
    expect(existsSync(join(dir, "typo"))).toBe(false);
  });

  it("refuses a folder given as the file, and a file given as the folder", () => {
    expect(problemsOf({ DATABASE_URL: dir })[0]).toContain(`DATABASE_URL names the folder "${dir}", not a SQLite file`);
    const file = join(dir, "plain.txt");
    writeFileSync(file, "x");
    expect(problemsOf({ DATABASE_URL: join(file, "x.db") })[0]).toContain(`"${file}", which is not a folder`);
  });

  it("accepts an existing folder, :memory:, sqlite:PATH, ./name:with-colon, ./data (made when missing) and postgresql://", () => {
    mkdirSync(join(dir, "ok"));
    expect(loadConfig({}, { database: join(dir, "ok", "a.db") }).database).toEqual({
      kind: "sqlite",
      url: join(dir, "ok", "a.db"),
      synchronous: "normal",
      groupCommit: true,
    });
    expect(loadConfig({ DATABASE_URL: ":memory:" }).database.url).toBe(":memory:");
    expect(loadConfig({ DATABASE_URL: `sqlite:${join(dir, "ok", "b.db")}` }).database.url).toBe(
      join(dir, "ok", "b.db"),
    );
    expect(loadConfig({ DATABASE_URL: "./x:y.db" }).database.url).toBe("./x:y.db");
    // The default folder is made by opening (npm start on a fresh clone), whatever the file's name.
    expect(loadConfig({ DATABASE_URL: "./data/other.db" }).database.url).toBe("./data/other.db");
    expect(loadConfig({ DATABASE_URL: "postgresql://u:p@h:5433/db" }).database.kind).toBe("postgres");
  });
});
