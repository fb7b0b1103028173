import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import type { Clock } from "../../src/core/clock.js";
import { listAudit } from "../../src/modules/audit/list-audit.js";
import { withActor } from "../../src/modules/context.js";
import { revokeKeyPair } from "../../src/modules/identity/key-pairs.js";
import { setPassword } from "../../src/modules/identity/set-password.js";
import { runRetention } from "../../src/modules/maintenance/retention.js";
import { createClient } from "../../src/modules/oauth/clients.js";
import { rotateSigningKey } from "../../src/modules/oauth/signing-keys.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const DAY = 86_400_000;

describe.each(engines())("the audit trail on %s", (engine) => {
  let h: Harness;
  let now = Date.parse("2026-11-22T00:00:00Z");
  const clock: Clock = { now: () => new Date(now) };
  const operator = () => withActor(h.deps, systemActor("ops"));
  const audit = (action: string, userId?: string) => listAudit(operator(), { action, userId, limit: 50 });
  beforeAll(async () => {
    h = await startHarness(engine, { clock, env: { AUDIT_RETENTION_DAYS: "30" } });
  });
  afterAll(async () => h.close());

  it("keeps who created and revoked a key pair, never its secrets", async () => {
    const u = await h.user(["feed:read"]);
    await revokeKeyPair(operator(), u.keyId);
    const [created] = await audit("key-pair.created", u.user.id);
    expect(created).toMatchObject({
      outcome: "success",
      actor: "system:test",
      userId: u.user.id,
      details: { keyPairId: u.keyId, scopes: "feed:read", environment: "demo" },
    });
    const [revoked] = await audit("key-pair.revoked", u.user.id);
    expect(revoked).toMatchObject({ actor: "system:ops", details: { keyPairId: u.keyId } });
    const everything = JSON.stringify(await listAudit(operator(), { userId: u.user.id, limit: 50 }));
    expect(everything).not.toContain(u.headers["x-api-key"]!);
    expect(everything).not.toContain(u.headers["x-user-key"]!);
  });

  it("keeps minted tokens, new OAuth clients, passwords set and signing-key rotations", async () => {
    const minted = await h.bearer(["feed:read"], { ttlSeconds: 600 });
    const [token] = await audit("access-token.minted", minted.user.id);
    expect(token).toMatchObject({ details: { ttlSeconds: 600, scopes: "feed:read" } });
    expect(JSON.stringify(token)).not.toContain(minted.token);

    const app = await createClient(operator(), { name: "Audited", redirectUris: ["https://app.example/cb"] });
    expect((await audit("oauth-client.created"))[0]).toMatchObject({
      actor: "system:ops",
      details: { clientId: app.clientId, type: "confidential" },
    });
    expect(JSON.stringify(await audit("oauth-client.created"))).not.toContain(app.clientSecret!);

    await setPassword(operator(), minted.user.id, "correct horse battery staple");
    expect(await audit("password.set", minted.user.id)).toHaveLength(1);
    expect(JSON.stringify(await audit("password.set", minted.user.id))).not.toContain("battery");

    const kept = await rotateSigningKey(operator(), { dropPrevious: true });
    expect((await audit("signing-key.rotated"))[0]).toMatchObject({ details: { kid: kept.kid } });
    const [dropped] = await audit("signing-keys.dropped");
    expect(dropped).toMatchObject({ details: { keptKid: kept.kid } });
    expect(dropped!.details.dropped).toBeGreaterThanOrEqual(1);
  });

  it("lists the newest first, filtered by time, and purges events older than AUDIT_RETENTION_DAYS", async () => {
    const old = await h.user(["feed:read"]);
    now += 20 * DAY;
    const recent = await h.user(["feed:read"]);
    const since = new Date(now - DAY).toISOString();
    const listed = await listAudit(operator(), { action: "key-pair.created", since, limit: 50 });
    expect(listed.map((e) => e.userId)).toEqual([recent.user.id]);
    const all = await listAudit(operator(), { action: "key-pair.created", limit: 50 });
    expect(all[0]!.userId).toBe(recent.user.id);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));

    now += 15 * DAY;
    const report = await runRetention(h.deps);
    expect(report.auditEvents).toBeGreaterThanOrEqual(1);
    expect(await audit("key-pair.created", old.user.id)).toEqual([]);
    expect(await audit("key-pair.created", recent.user.id)).toHaveLength(1);
  });
});
