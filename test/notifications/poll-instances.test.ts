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
import { notify } from "../../src/modules/notifications/notify.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { REDIS_TEST_URL } from "../support/services.js";

/**
 * Two instances on one store and one Redis bus, each keeping poll answers: a notification created,
 * seen or read on one is in the other's next poll once the event arrives (milliseconds), well
 * before a kept answer's maximum age.
 */
describe.each(inject("services").redis ? ["redis"] : [])("notification polls across instances (%s bus)", () => {
  let dir: string;
  const instances: { deps: Deps; app: App }[] = [];
  let headers: Record<string, string>;
  let userId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-poll-"));
    const config = loadConfig(
      {
        LOG_LEVEL: "silent",
        REDIS_URL: REDIS_TEST_URL,
        REDIS_NAMESPACE: `test-${randomUUID()}`,
        RATE_LIMITS_ENABLED: "false",
      },
      { database: join(dir, "shared.db") },
    );
    for (let i = 0; i < 2; i++) {
      const deps = await createDeps(config);
      instances.push({ deps, app: await buildApp(config, deps) });
    }
    const operator = withActor(instances[0]!.deps, systemActor("test"));
    const user = await createUser(operator, { username: `poller_${randomUUID().slice(0, 8)}` });
    userId = user.id;
    const key = await createKeyPair(operator, { user: user.id, scopes: ["notifications:read", "notifications:write"] });
    headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey };
  });
  afterAll(async () => {
    for (const { app, deps } of instances) {
      await app.close();
      await closeDeps(deps);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (app: App, method: "GET" | "PATCH" = "GET") => {
    const res = await app.inject({
      method,
      url: "/api/v1/notifications/messages",
      headers: { ...headers, "x-request-id": randomUUID() },
    });
    return method === "GET" ? res.json() : res.statusCode;
  };
  type Poll = { messages: { message: string; readStatus: string }[]; meta: { notSeen: number } };

  /** Polls `app` until `ok` holds (the event is in flight for a few milliseconds). */
  async function eventually(app: App, ok: (body: Poll) => boolean): Promise<Poll> {
    const until = Date.now() + 3000;
    for (;;) {
      const body = (await call(app)) as Poll;
      if (ok(body) || Date.now() > until) return body;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it("a notification created on one instance reaches the other's kept answer; Seen and Read follow", async () => {
    const [a, b] = [instances[0]!, instances[1]!];
    // Both instances keep the answer with nothing New (the welcome is moved to Seen by A).
    expect(((await call(a.app)) as Poll).meta.notSeen).toBe(1);
    expect(((await call(a.app)) as Poll).meta.notSeen).toBe(0);
    expect(((await call(b.app)) as Poll).messages.map((m) => m.readStatus)).toEqual(["Seen"]);
    expect(b.deps.notificationPolls.peek(userId)).toBeDefined();

    await notify(a.deps, { userId, kind: "announcement", message: "from A", actionLink: "/docs" });
    const onB = await eventually(b.app, (p) => p.messages.length === 2);
    expect(onB.meta.notSeen).toBe(1);
    expect(onB.messages[0]).toMatchObject({ message: "from A", readStatus: "New" });

    // B moved it to Seen: A's next poll (its answer was dropped by the creation) says so.
    const onA = await eventually(a.app, (p) => p.messages[0]?.readStatus === "Seen");
    expect(onA.meta.notSeen).toBe(0);
    expect(onA.messages.map((m) => m.readStatus)).toEqual(["Seen", "Seen"]);

    // A PATCH on A reaches B's kept answer.
    expect(((await call(b.app)) as Poll).messages.map((m) => m.readStatus)).toEqual(["Seen", "Seen"]);
    expect(await call(a.app, "PATCH")).toBe(204);
    const read = await eventually(b.app, (p) => p.messages.every((m) => m.readStatus === "Read"));
    expect(read.messages.map((m) => m.readStatus)).toEqual(["Read", "Read"]);
  });
});
