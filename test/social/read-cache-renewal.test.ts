import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SqliteDatabase from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { systemActor } from "../../src/core/actor.js";
import { type Deps, withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { ensureInstrumentCatalog } from "../../src/modules/market/seed-catalog.js";
import { closeDeps, createDeps } from "../../src/runtime.js";

const MAX_AGE_MS = 300;
const TOKEN = "renewal-metrics-token-0123456789";

/**
 * READ_CACHE_MAX_AGE_MS on SQLite (docs/decisions/0212): a post's kept document outlives it while
 * only the server writes, and is built again within it once another connection writes the file.
 */
describe("the read cache's maximum age on a SQLite file", () => {
  let dir: string;
  let deps: Deps;
  let app: App;
  let headers: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-renewal-"));
    const config = loadConfig(
      {
        LOG_LEVEL: "silent",
        RATE_LIMITS_ENABLED: "false",
        READ_CACHE_MAX_AGE_MS: String(MAX_AGE_MS),
        METRICS: "on",
        METRICS_TOKEN: TOKEN,
      },
      { database: join(dir, "renewal.db") },
    );
    deps = await createDeps(config);
    await ensureInstrumentCatalog(deps);
    app = await buildApp(config, deps);
    const operator = withActor(deps, systemActor("test"));
    const user = await createUser(operator, { username: `renewal_${randomUUID().slice(0, 8)}` });
    const key = await createKeyPair(operator, { user: user.id, scopes: ["feed:read", "feed:write"] });
    headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey };
  });
  afterAll(async () => {
    await app.close();
    await closeDeps(deps);
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: "GET" | "POST", url: string, payload?: object) =>
    app.inject({ method, url, headers: { ...headers, "x-request-id": randomUUID() }, ...(payload ? { payload } : {}) });
  const counter = async (name: string) => {
    const text = (await app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${TOKEN}` } }))
      .body;
    return Number(text.match(new RegExp(`^sta_read_cache_${name}_total (\\S+)$`, "m"))?.[1]);
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** A CLI command or another instance beside the server: a commit the server hears nothing of. */
  const editElsewhere = (postId: string, text: string) => {
    const other = new SqliteDatabase(join(dir, "renewal.db"));
    try {
      other.pragma("busy_timeout = 5000");
      other.prepare("update posts set text = ? where id = ?").run(text, postId);
    } finally {
      other.close();
    }
  };

  it("serves a post's document past the maximum age without building it again while only the server writes", async () => {
    const post = (await call("POST", "/api/v1/posts", { message: "Kept on" })).json();
    const url = `/api/v1/posts/${post.id}`;
    const first = (await call("GET", url)).body;
    const misses = await counter("misses");
    const renewals = await counter("renewals");
    for (let i = 0; i < 3; i++) {
      await sleep(MAX_AGE_MS + 50);
      expect((await call("GET", url)).body).toBe(first);
    }
    expect(await counter("misses"), "no build after the first").toBe(misses);
    expect(await counter("renewals")).toBeGreaterThanOrEqual(renewals + 3);
  });

  it("renews a feed's documents too, and shows another connection's write within the maximum age", async () => {
    const post = (
      await call("POST", "/api/v1/posts", { message: "In a feed", tags: { tags: [{ id: "1001" }] } })
    ).json();
    const feed = "/api/v1/feeds/markets/1001?take=5";
    const text = async () => (await call("GET", feed)).json().discussions[0].post.message.text;
    expect(await text()).toBe("In a feed");
    const renewals = await counter("renewals");
    await sleep(MAX_AGE_MS + 50);
    expect(await text()).toBe("In a feed");
    expect(await counter("renewals"), "the page's document renewed").toBeGreaterThan(renewals);
    editElsewhere(post.id, "Edited beside the server");
    await sleep(MAX_AGE_MS + 50);
    expect(await text()).toBe("Edited beside the server");
  });

  it("builds it again within the maximum age once another connection wrote to the file", async () => {
    const post = (await call("POST", "/api/v1/posts", { message: "Before the other writer" })).json();
    const url = `/api/v1/posts/${post.id}`;
    expect((await call("GET", url)).json().post.message.text).toBe("Before the other writer");
    editElsewhere(post.id, "Written by another process");
    await sleep(MAX_AGE_MS + 50);
    expect((await call("GET", url)).json().post.message.text).toBe("Written by another process");
  });
});
