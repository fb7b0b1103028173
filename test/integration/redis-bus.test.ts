import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, inject, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { systemActor } from "../../src/core/actor.js";
import type { DomainEvent } from "../../src/core/events.js";
import { RedisEventBus } from "../../src/infra/bus/redis.js";
import { withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { createKeyPair, revokeKeyPair } from "../../src/modules/identity/key-pairs.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { REDIS_TEST_URL } from "../support/services.js";

const log = pino({ level: "silent" });
const revoked = (): DomainEvent => ({
  type: "KeyPairRevoked",
  keyPairId: randomUUID(),
  userId: randomUUID(),
  occurredAt: new Date().toISOString(),
});

/** Resolves with what `take` collects once it holds `n` items, or rejects after a while. */
function collect<T>(n: number) {
  const items: T[] = [];
  let done: () => void = () => {};
  const full = new Promise<void>((resolve, reject) => {
    done = resolve;
    setTimeout(() => reject(new Error(`only ${items.length} of ${n} arrived`)), 3000);
  });
  return {
    items,
    full,
    take: (item: T) => {
      items.push(item);
      if (items.length >= n) done();
    },
  };
}

describe.each(inject("services").redis ? ["redis"] : [])("the %s event bus across instances", () => {
  it("runs `everywhere` subscribers in every instance and `once` subscribers only where published", async () => {
    // A channel of its own: other suites publish on the shared Redis at the same time.
    const channel = `test-${randomUUID()}:events`;
    const a = await RedisEventBus.connect(REDIS_TEST_URL, log, channel);
    const b = await RedisEventBus.connect(REDIS_TEST_URL, log, channel);
    try {
      const everywhereA = collect<DomainEvent>(1);
      const everywhereB = collect<DomainEvent>(1);
      const onceB: DomainEvent[] = [];
      const onceA: DomainEvent[] = [];
      a.subscribeEverywhere("KeyPairRevoked", everywhereA.take);
      b.subscribeEverywhere("KeyPairRevoked", everywhereB.take);
      a.subscribe("KeyPairRevoked", (e) => {
        onceA.push(e);
      });
      b.subscribe("KeyPairRevoked", (e) => {
        onceB.push(e);
      });

      const event = revoked();
      await a.publish([event]);
      await Promise.all([everywhereA.full, everywhereB.full]);
      expect(everywhereA.items).toEqual([event]);
      expect(everywhereB.items).toEqual([event]);
      expect(onceA).toEqual([event]);
      // Give a stray delivery time to show up before asserting it did not.
      await new Promise((r) => setTimeout(r, 100));
      expect(onceB).toEqual([]);
      expect(everywhereA.items).toHaveLength(1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("without Redis it still starts, and publishing still runs the local subscribers", async () => {
    const lonely = await RedisEventBus.connect("redis://127.0.0.1:1", log);
    try {
      const seen: DomainEvent[] = [];
      lonely.subscribe("KeyPairRevoked", (e) => {
        seen.push(e);
      });
      lonely.subscribeEverywhere("KeyPairRevoked", (e) => {
        seen.push(e);
      });
      const event = revoked();
      await lonely.publish([event]);
      expect(seen).toEqual([event, event]);
    } finally {
      await lonely.close();
    }
  });
});

describe.each(inject("services").redis ? ["redis"] : [])("two instances on one %s bus", () => {
  it("a key pair revoked through one instance is refused at once by the other", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sta-bus-"));
    const config = loadConfig(
      {
        LOG_LEVEL: "silent",
        REDIS_URL: REDIS_TEST_URL,
        REDIS_NAMESPACE: `test-${randomUUID()}`,
        RATE_LIMITS_ENABLED: "false",
      },
      { database: join(dir, "shared.db") },
    );
    const depsA = await createDeps(config);
    const depsB = await createDeps(config);
    const appB = await buildApp(config, depsB);
    try {
      const operator = withActor(depsA, systemActor("test"));
      const user = await createUser(operator, { username: `bus_${Date.now()}` });
      const key = await createKeyPair(operator, { user: user.id, scopes: ["user-info:read"] });
      const headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey };
      expect((await appB.inject({ method: "GET", url: "/api/v1/me", headers })).statusCode).toBe(200);

      await revokeKeyPair(operator, key.id);
      // The broadcast is asynchronous: allow it a moment, far below the cache TTL.
      let status = 200;
      for (let i = 0; i < 20 && status === 200; i++) {
        await new Promise((r) => setTimeout(r, 20));
        status = (await appB.inject({ method: "GET", url: "/api/v1/me", headers })).statusCode;
      }
      expect(status).toBe(401);
      expect(config.authCacheTtlMs).toBeGreaterThan(400);
    } finally {
      await appB.close();
      await closeDeps(depsB);
      await closeDeps(depsA);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
