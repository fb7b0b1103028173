import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { systemActor } from "../../src/core/actor.js";
import { type Deps, withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { ensureInstrumentCatalog } from "../../src/modules/market/seed-catalog.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { multipart, png } from "./images.js";

/**
 * Two instances on one store and one MEDIA_DIR (a shared volume): an image uploaded through one is
 * posted and served through the other (decision 0122).
 */
describe("media uploads across two instances", () => {
  let dir: string;
  const instances: { deps: Deps; app: App }[] = [];
  let headers: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-media-instances-"));
    const config = loadConfig(
      { LOG_LEVEL: "silent", RATE_LIMITS_ENABLED: "false", MEDIA_DIR: join(dir, "media") },
      { database: join(dir, "shared.db") },
    );
    for (let i = 0; i < 2; i++) {
      const deps = await createDeps(config);
      if (i === 0) await ensureInstrumentCatalog(deps);
      instances.push({ deps, app: await buildApp(config, deps) });
    }
    const operator = withActor(instances[0]!.deps, systemActor("test"));
    const user = await createUser(operator, { username: `uploader_${randomUUID().slice(0, 8)}` });
    const key = await createKeyPair(operator, { user: user.id, scopes: ["feed:read", "feed:write"] });
    headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey };
  });
  afterAll(async () => {
    for (const { app, deps } of instances) {
      await app.close();
      await closeDeps(deps);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("uploaded on one, posted and served on the other", async () => {
    const [a, b] = [instances[0]!.app, instances[1]!.app];
    const body = multipart(png({ width: 5, height: 6, metadata: true }));
    const up = await a.inject({
      method: "POST",
      url: "/api/v1/attachments",
      headers: { ...headers, "x-request-id": randomUUID(), ...body.headers },
      payload: body.payload,
    });
    expect(up.statusCode, up.body).toBe(200);
    const attachment = up.json();
    const post = await b.inject({
      method: "POST",
      url: "/api/v1/posts",
      headers: { ...headers, "x-request-id": randomUUID() },
      payload: { message: "from the other instance", attachments: [attachment] },
    });
    expect(post.statusCode, post.body).toBe(201);
    const served = await b.inject({ method: "GET", url: new URL(attachment.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(png({ width: 5, height: 6 }))).toBe(true);
    const again = await a.inject({ method: "GET", url: new URL(attachment.url).pathname });
    expect(again.headers.etag).toBe(served.headers.etag);
  });
});
