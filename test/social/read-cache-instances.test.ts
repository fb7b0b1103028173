import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { systemActor } from "../../src/core/actor.js";
import { type Deps, withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { ensureInstrumentCatalog } from "../../src/modules/market/seed-catalog.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { REDIS_TEST_URL } from "../support/services.js";

/**
 * Two instances on one store and one Redis bus, each with its read cache: a write on one is seen
 * by the other's next reads once its SocialChanged arrives (milliseconds), without waiting for
 * READ_CACHE_MAX_AGE_MS (set to an hour here).
 */
describe.each(inject("services").redis ? ["redis"] : [])("the social read cache across instances (%s bus)", () => {
  let dir: string;
  const instances: { deps: Deps; app: App }[] = [];
  let headers: Record<string, string>;
  /** A second reader: shares B's post document with the first (docs/decisions/0169). */
  let other: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-read-cache-"));
    const config = loadConfig(
      {
        LOG_LEVEL: "silent",
        REDIS_URL: REDIS_TEST_URL,
        REDIS_NAMESPACE: `test-${randomUUID()}`,
        RATE_LIMITS_ENABLED: "false",
        READ_CACHE_MAX_AGE_MS: "3600000",
      },
      { database: join(dir, "shared.db") },
    );
    for (let i = 0; i < 2; i++) {
      const deps = await createDeps(config);
      if (i === 0) await ensureInstrumentCatalog(deps);
      instances.push({ deps, app: await buildApp(config, deps) });
    }
    const operator = withActor(instances[0]!.deps, systemActor("test"));
    const user = await createUser(operator, { username: `reader_${randomUUID().slice(0, 8)}` });
    const key = await createKeyPair(operator, { user: user.id, scopes: ["feed:read", "feed:write"] });
    headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey };
    const second = await createUser(operator, { username: `other_${randomUUID().slice(0, 8)}` });
    const otherKey = await createKeyPair(operator, { user: second.id, scopes: ["feed:read", "feed:write"] });
    other = { "x-api-key": otherKey.apiKey, "x-user-key": otherKey.userKey };
  });
  afterAll(async () => {
    for (const { app, deps } of instances) {
      await app.close();
      await closeDeps(deps);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (app: App, method: "GET" | "POST", url: string, payload?: object, as = headers) =>
    app.inject({ method, url, headers: { ...as, "x-request-id": randomUUID() }, ...(payload ? { payload } : {}) });

  /** Reads `url` on `app` until `ok` holds (the event is in flight for a few milliseconds). */
  async function eventually(
    app: App,
    url: string,
    ok: (body: Record<string, unknown>) => boolean,
    as: Record<string, string> = headers,
  ) {
    const until = Date.now() + 3000;
    for (;;) {
      const body = (await call(app, "GET", url, undefined, as)).json();
      if (ok(body) || Date.now() > until) return body;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it("a like, a comment and a new post on one instance reach the other's cached post and feed", async () => {
    const [a, b] = [instances[0]!.app, instances[1]!.app];
    const post = (
      await call(a, "POST", "/api/v1/posts", { message: "Two instances", tags: { tags: [{ id: "1001" }] } })
    ).json();
    const postUrl = `/api/v1/posts/${post.id}`;
    const feedUrl = "/api/v1/feeds/markets/1001?take=5";
    // B caches both answers.
    expect((await call(b, "GET", postUrl)).json().emotionsData.like.paging.totalCount).toBe(0);
    expect((await call(b, "GET", feedUrl)).json().discussions[0].id).toBe(post.id);

    expect((await call(a, "POST", `${postUrl}/likes`)).statusCode).toBe(204);
    expect((await call(a, "POST", `${postUrl}/comments`, { message: "Seen over there?" })).statusCode).toBe(201);
    // Until the like's event arrives, B may answer from its kept parts: the document and the
    // caller's marks (docs/decisions/0191) are each redone when it does.
    type Seen = { summary: { totalCommentsAndReplies: number }; requesterContext: { isLiking: boolean } };
    const seen = await eventually(
      b,
      postUrl,
      (d) => (d as Seen).summary.totalCommentsAndReplies === 1 && (d as Seen).requesterContext.isLiking,
    );
    expect(seen).toEqual((await call(a, "GET", postUrl)).json());
    expect(
      (seen as { emotionsData: { like: { paging: { totalCount: number } } } }).emotionsData.like.paging.totalCount,
    ).toBe(1);

    const next = (
      await call(a, "POST", "/api/v1/posts", { message: "Newer", tags: { tags: [{ id: "1001" }] } })
    ).json();
    const page = await eventually(
      b,
      feedUrl,
      (d) => (d as { discussions: { id: string }[] }).discussions[0]?.id === next.id,
    );
    expect((page as { discussions: { id: string }[] }).discussions.map((d) => d.id).slice(0, 2)).toEqual([
      next.id,
      post.id,
    ]);
  });

  it("a like on one instance reaches the other's shared document, each caller with their own flags", async () => {
    const [a, b] = [instances[0]!.app, instances[1]!.app];
    const post = (
      await call(a, "POST", "/api/v1/posts", { message: "Shared", tags: { tags: [{ id: "1001" }] } })
    ).json();
    const url = `/api/v1/posts/${post.id}`;
    type Seen = { emotionsData: { like: { paging: { totalCount: number } } }; requesterContext: { isLiking: boolean } };
    // B builds the post's shared document for the first reader and answers the second from it.
    expect((await call(b, "GET", url)).json().requesterContext.isOwner).toBe(true);
    expect((await call(b, "GET", url, undefined, other)).json().requesterContext.isOwner).toBe(false);

    expect((await call(a, "POST", `${url}/likes`, undefined, other)).statusCode).toBe(204);
    const asOther = (await eventually(
      b,
      url,
      (d) => (d as Seen).emotionsData.like.paging.totalCount === 1 && (d as Seen).requesterContext.isLiking,
      other,
    )) as Seen;
    expect(asOther.emotionsData.like.paging.totalCount).toBe(1);
    expect(asOther.requesterContext.isLiking).toBe(true);
    const asOwner = (await call(b, "GET", url)).json() as Seen;
    expect(asOwner.emotionsData.like.paging.totalCount).toBe(1);
    expect(asOwner.requesterContext.isLiking).toBe(false);
  });
});
