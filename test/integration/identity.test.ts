import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANONYMOUS, systemActor } from "../../src/core/actor.js";
import type { AppError } from "../../src/core/errors.js";
import { type Ctx, withActor } from "../../src/modules/context.js";
import { createKeyPairAuthenticator } from "../../src/modules/identity/authenticate.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { createKeyPair, listKeyPairs, revokeKeyPair } from "../../src/modules/identity/key-pairs.js";
import { listNotifications } from "../../src/modules/notifications/list-notifications.js";
import { notify } from "../../src/modules/notifications/notify.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return "ok";
  } catch (e) {
    return (e as AppError).code;
  }
};

describe.each(engines())("identity and notification use cases on %s", (engine) => {
  let h: Harness;
  let operator: Ctx;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { AUTH_CACHE_TTL_MS: "0" } });
    operator = withActor(h.deps, systemActor("test"));
  });
  afterAll(async () => h.close());

  it("usernames are unique regardless of case, and validated", async () => {
    await createUser(operator, { username: "Grace" });
    expect(await codeOf(createUser(operator, { username: "grace" }))).toBe("Conflict");
    expect(await codeOf(createUser(operator, { username: "no spaces" }))).toBe("ValidationFailed");
    expect(await codeOf(createUser(operator, { username: "ab" }))).toBe("ValidationFailed");
  });

  it("only the operator creates users and keys", async () => {
    const anonymous = withActor(h.deps, ANONYMOUS);
    expect(await codeOf(createUser(anonymous, { username: "sneaky" }))).toBe("Forbidden");
    expect(await codeOf(createKeyPair(anonymous, { user: "Grace", scopes: ["feed:read"] }))).toBe("Forbidden");
  });

  it("issues pairs with normalized, de-duplicated scopes, stores no secret, and revokes them once", async () => {
    const user = await createUser(operator, { username: "hopper" });
    const issued = await createKeyPair(operator, {
      user: "HOPPER",
      scopes: ["feed:read,service-public:feed:read", " watchlist:write "],
      environment: "real",
    });
    expect(issued.scopes).toEqual(["service-public:feed:read", "service-public:watchlist:write"]);
    expect(issued.environment).toBe("real");
    const rows = await h.deps.db.kysely.selectFrom("keyPairs").selectAll().where("userId", "=", user.id).execute();
    expect(JSON.stringify(rows)).not.toContain(issued.apiKey);
    expect(JSON.stringify(rows)).not.toContain(issued.userKey);

    const authenticate = createKeyPairAuthenticator(h.deps);
    const actor = await authenticate(issued.apiKey, issued.userKey);
    expect(actor).toMatchObject({ kind: "user", userId: user.id, gcid: user.gcid, environment: "real" });
    expect(await authenticate(issued.userKey, issued.apiKey)).toBeNull();

    const first = await revokeKeyPair(operator, issued.id);
    const again = await revokeKeyPair(operator, issued.id);
    expect(again.revokedAt).toBe(first.revokedAt);
    expect(await authenticate(issued.apiKey, issued.userKey)).toBeNull();
    expect((await listKeyPairs(operator, user.id))[0]?.revokedAt).toBe(first.revokedAt);
    expect(await codeOf(revokeKeyPair(operator, "00000000-0000-4000-8000-000000000000"))).toBe("NotFound");
  });

  it("rejects unknown scopes and environments", async () => {
    expect(await codeOf(createKeyPair(operator, { user: "Grace", scopes: ["feed:fly"] }))).toBe("ValidationFailed");
    expect(await codeOf(createKeyPair(operator, { user: "Grace", scopes: [] }))).toBe("ValidationFailed");
    expect(await codeOf(createKeyPair(operator, { user: "Grace", scopes: ["feed:read"], environment: "live" }))).toBe(
      "ValidationFailed",
    );
  });

  it("concurrent reads each return every notification and leave none New", async () => {
    const u = await h.user(["notifications:read"]);
    for (let i = 0; i < 5; i++)
      await notify(h.deps, { userId: u.user.id, kind: "announcement", message: `n${i}`, actionLink: "/docs" });
    const actor = await createKeyPairAuthenticator(h.deps)(u.headers["x-api-key"]!, u.headers["x-user-key"]!);
    const ctx = withActor(h.deps, actor!);
    const results = await Promise.all(Array.from({ length: 4 }, () => listNotifications(ctx)));
    const after = await listNotifications(ctx);
    expect(after.meta.notSeen).toBe(0);
    // Every read saw all six; how many each counted as New depends on interleaving, the first saw all.
    for (const r of results) expect(r.messages).toHaveLength(6);
    expect(Math.max(...results.map((r) => r.meta.notSeen))).toBe(6);
  });
});
