import { describe, expect, it } from "vitest";
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
