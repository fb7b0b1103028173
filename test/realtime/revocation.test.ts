import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { createKeyPair, revokeKeyPair } from "../../src/modules/identity/key-pairs.js";
import { revokeGrant } from "../../src/modules/oauth/grants.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { Client, listening, sleep, until } from "./client.js";

const BTC = 100000;

describe.each(engines())("sockets whose credential ends, and sockets that never authenticate, on %s", (engine) => {
  let h: Harness;
  let url: string;
  const open: Client[] = [];
  const connect = async () => {
    const c = await Client.open(url);
    open.push(c);
    return c;
  };

  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        PUBLIC_URL: "https://api.example.test",
        REALTIME_AUTH_TIMEOUT_SECONDS: "1",
        REALTIME_MAX_UNAUTHENTICATED: "3",
      },
    });
    url = await listening(h.app);
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {});
    await h.close();
  });

  it("closes the sockets a revoked key pair authenticated (1008), and only those", async () => {
    const u = await h.user(["trade.demo:read"]);
    const second = await createKeyPair(withActor(h.deps, systemActor("test")), {
      user: u.user.id,
      scopes: ["trade.demo:read"],
    });
    const revoked = await connect();
    const kept = await connect();
    expect((await revoked.authenticate(u.headers)).success).toBe(true);
    const keptReply = await kept.request("Authenticate", { apiKey: second.apiKey, userKey: second.userKey });
    expect(keptReply.success).toBe(true);
    expect((await kept.request("Subscribe", { topics: [`instrument:${BTC}`] })).success).toBe(true);

    await revokeKeyPair(withActor(h.deps, systemActor("test")), u.keyId);
    await until("the revoked key pair's socket is closed", () => revoked.closed !== undefined);
    expect(revoked.closed).toEqual({ code: 1008, reason: "The key pair was revoked" });
    // The user's other key pair goes on hearing its rates.
    const heard = kept.of(`instrument:${BTC}`).length;
    await h.deps.market.tick();
    await until("a rate reaches the other socket", () => kept.of(`instrument:${BTC}`).length > heard);
    expect(kept.closed).toBeUndefined();
  });

  it("closes a bearer socket once its grant is revoked", async () => {
    const { token } = await h.bearer(["trade.demo:read"]);
    const c = await connect();
    expect((await c.request("Authenticate", { accessToken: token })).success).toBe(true);
    const other = await h.bearer(["trade.demo:read"]);
    const d = await connect();
    expect((await d.request("Authenticate", { accessToken: other.token })).success).toBe(true);

    const grantId = decodeJwt(token).sid;
    expect(typeof grantId).toBe("string");
    expect(await revokeGrant(h.deps, grantId as string, "revoked by the test")).toBe(true);
    await until("the revoked grant's socket is closed", () => c.closed !== undefined);
    expect(c.closed).toEqual({ code: 1008, reason: "The access token was revoked" });
    await sleep(100);
    expect(d.closed).toBeUndefined();
  });

  it("closes a socket that does not authenticate within REALTIME_AUTH_TIMEOUT_SECONDS", async () => {
    const idle = await connect();
    const u = await h.user(["trade.demo:read"]);
    const prompt = await connect();
    expect((await prompt.authenticate(u.headers)).success).toBe(true);
    await until("the idle socket is closed", () => idle.closed !== undefined, 4000);
    expect(idle.closed).toEqual({ code: 1008, reason: "Authenticate within 1 seconds" });
    await sleep(300);
    expect(prompt.closed).toBeUndefined();
  });

  it("answers 503 to an upgrade past REALTIME_MAX_UNAUTHENTICATED, and admits again once one authenticates", async () => {
    const waiting = [await connect(), await connect(), await connect()];
    await expect(Client.open(url)).rejects.toThrow("HTTP 503");
    const u = await h.user(["trade.demo:read"]);
    expect((await waiting[0]!.authenticate(u.headers)).success).toBe(true);
    const admitted = await connect();
    expect(admitted.closed).toBeUndefined();
    for (const c of waiting) await c.close();
    await admitted.close();
  });
});
