import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { Client, listening } from "./client.js";

const BTC = 100000;
const AP = "/api/v1/agent-portfolios";
const AP2 = "/api/v2/agent-portfolios";

/**
 * A credential with an IP allow-list (an agent portfolio's user token, decision 0144) authenticates
 * a socket only from an address on its list, the address the REST API would see (TRUST_PROXY).
 */
describe.each(engines())("the IP allow-list of a socket's credential on %s", (engine) => {
  /** Two servers: one that trusts no proxy, one behind a proxy on the loopback (X-Forwarded-For). */
  const servers: { direct?: Harness; proxied?: Harness } = {};
  const open: Client[] = [];

  /** An agent portfolio's user token reading market data, usable only from `ips`. */
  const tokenFrom = async (h: Harness, owner: TestUser, ips: string[]) => {
    const headers = { ...owner.headers, "x-request-id": randomUUID() };
    const created = await h.app.inject({
      method: "POST",
      url: AP,
      headers,
      payload: {
        investmentAmountInUsd: 500,
        agentPortfolioName: `ip${randomUUID().slice(0, 8)}`,
        userTokenName: "first",
        scopeIds: [201],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { agentPortfolioId: string }).agentPortfolioId;
    const token = await h.app.inject({
      method: "POST",
      url: `${AP2}/${id}/user-tokens`,
      headers: { ...owner.headers, "x-request-id": randomUUID() },
      payload: { userTokenName: "restricted", scopeNames: ["trade.demo:read"], ipsWhitelist: ips },
    });
    expect(token.statusCode).toBe(201);
    return { apiKey: owner.headers["x-api-key"]!, userKey: (token.json() as { userToken: string }).userToken };
  };

  const connect = async (h: Harness, forwardedFor?: string) => {
    const c = await Client.open(
      await listening(h.app),
      forwardedFor ? { headers: { "x-forwarded-for": forwardedFor } } : {},
    );
    open.push(c);
    return c;
  };

  /** The same credential on REST, from the same address: the two edges must agree. */
  const restStatus = async (h: Harness, key: { apiKey: string; userKey: string }, forwardedFor?: string) =>
    (
      await h.app.inject({
        method: "GET",
        url: "/api/v1/trading/info/demo/portfolio",
        remoteAddress: "127.0.0.1",
        headers: {
          "x-api-key": key.apiKey,
          "x-user-key": key.userKey,
          "x-request-id": randomUUID(),
          ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
        },
      })
    ).statusCode;

  beforeAll(async () => {
    servers.direct = await startHarness(engine, { env: { REALTIME_KEEPALIVE_MS: "0" } });
    servers.proxied = await startHarness(engine, { env: { REALTIME_KEEPALIVE_MS: "0", TRUST_PROXY: "loopback" } });
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {});
    await servers.direct?.close();
    await servers.proxied?.close();
  });

  it("refuses Authenticate from an address off the list (Unauthorized) and admits one on it", async () => {
    const h = servers.direct!;
    const owner = await h.user(["agent-portfolio:write", "trade.demo:write"]);
    const elsewhere = await tokenFrom(h, owner, ["10.1.2.3"]);
    const here = await tokenFrom(h, owner, ["127.0.0.1"]);

    const refused = await connect(h);
    const reply = await refused.request("Authenticate", elsewhere);
    expect(reply).toMatchObject({ success: false, operation: "Authenticate", errorCode: "Unauthorized" });
    expect(reply.errorMessage).toMatch(/IP allow-list/);
    // Still unauthenticated: it may not subscribe.
    const subscribe = await refused.request("Subscribe", { topics: [`instrument:${BTC}`] });
    expect(subscribe).toMatchObject({ success: false, errorCode: "Unauthorized" });
    expect(await restStatus(h, elsewhere)).toBe(401);

    const admitted = await connect(h);
    expect(await admitted.request("Authenticate", here)).toMatchObject({ success: true });
    expect((await admitted.request("Subscribe", { topics: [`instrument:${BTC}`], snapshot: true })).success).toBe(true);
    await admitted.waitFor("the snapshot", (p) => p.topic === `instrument:${BTC}` && p.type === "Snapshot");
    expect(await restStatus(h, here)).toBe(200);

    // A client cannot claim an address when no proxy is trusted.
    const claiming = await connect(h, "10.1.2.3");
    expect(await claiming.request("Authenticate", elsewhere)).toMatchObject({
      success: false,
      errorCode: "Unauthorized",
    });
  });

  it("behind a trusted proxy, checks the address the proxy forwarded for, as REST does", async () => {
    const h = servers.proxied!;
    const owner = await h.user(["agent-portfolio:write", "trade.demo:write"]);
    const remote = await tokenFrom(h, owner, ["10.1.2.3"]);
    const local = await tokenFrom(h, owner, ["127.0.0.1"]);

    const viaProxy = await connect(h, "10.1.2.3");
    expect(await viaProxy.request("Authenticate", remote)).toMatchObject({ success: true });
    expect(await restStatus(h, remote, "10.1.2.3")).toBe(200);

    const proxyAddressOnly = await connect(h, "10.1.2.3");
    expect(await proxyAddressOnly.request("Authenticate", local)).toMatchObject({
      success: false,
      errorCode: "Unauthorized",
    });
    expect(await restStatus(h, local, "10.1.2.3")).toBe(401);

    // The client's own claim behind the proxy's is not believed: the nearest untrusted hop counts.
    const spoofing = await connect(h, "10.1.2.3, 198.51.100.4");
    expect(await spoofing.request("Authenticate", remote)).toMatchObject({ success: false, errorCode: "Unauthorized" });
    expect(await restStatus(h, remote, "10.1.2.3, 198.51.100.4")).toBe(401);
  });
});
