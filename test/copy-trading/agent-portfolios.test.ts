import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { engines, type Harness, type Headers, startHarness, type TestUser } from "../support/harness.js";

const AAPL = 1001;
const AP = "/api/v1/agent-portfolios";
const AP2 = "/api/v2/agent-portfolios";

interface Created {
  agentPortfolioId: string;
  agentPortfolioGcid: number;
  agentPortfolioVirtualBalance: number;
  mirrorId: number;
  userTokens: { userTokenId: string; userToken: string; clientId: string; scopes: { name: string }[] }[];
}

interface Position {
  positionID: number;
  mirrorID: number;
  parentPositionID: number;
  amount: number;
  openRate: number;
  units: number;
}
interface Portfolio {
  credit: number;
  positions: Position[];
  mirrors: { mirrorID: number; availableAmount: number; parentUsername: string; positions: Position[] }[];
}

describe.each(engines())("agent portfolios and their copies on %s", (engine) => {
  let h: Harness;
  let owner: TestUser;
  const prefix = () => h.config.scopePrefix;

  const call = async (
    method: "GET" | "POST" | "PATCH" | "DELETE",
    url: string,
    headers: Headers,
    body?: unknown,
    remoteAddress?: string,
  ) => {
    const res = await h.app.inject({
      method,
      url,
      headers: { ...headers, "x-request-id": randomUUID() },
      ...(body !== undefined ? { payload: body as object } : {}),
      ...(remoteAddress ? { remoteAddress } : {}),
    });
    return { status: res.statusCode, body: res.body ? (res.json() as never) : (null as never) };
  };
  const tokenHeaders = (token: string): Headers => ({ "x-api-key": owner.headers["x-api-key"]!, "x-user-key": token });
  const portfolioOf = async (headers: Headers) =>
    (await call("GET", "/api/v1/trading/info/demo/portfolio", headers)).body as { clientPortfolio: Portfolio };
  const settle = async () => mirrorEngineOf(h.deps)!.idle();
  /** The copy's positions as the caller's portfolio shows them (in its mirror, not in positions). */
  const copiesIn = async (mirrorId: number) => {
    const portfolio = (await portfolioOf(owner.headers)).clientPortfolio;
    expect(portfolio.positions.filter((p) => p.mirrorID !== 0)).toEqual([]);
    return portfolio.mirrors.find((m) => m.mirrorID === mirrorId)?.positions ?? [];
  };

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
    owner = await h.user(["agent-portfolio:write", "trade.demo:write"]);
  });
  afterAll(async () => h?.close());

  it("creates a portfolio whose token trades the agent's account, and the caller's copy follows at its share", async () => {
    const created = await call("POST", AP2, owner.headers, {
      investmentAmountInUsd: 2000,
      agentPortfolioName: "MyPort1",
      userTokenName: "bot",
      scopeNames: [`${prefix()}:trade.demo:write`, "trade.demo:read"],
    });
    expect(created.status).toBe(201);
    const ap = created.body as Created;
    expect(ap.agentPortfolioVirtualBalance).toBe(10000);
    expect(ap.userTokens).toHaveLength(1);
    const token = ap.userTokens[0]!;
    expect(token.clientId).toBe(owner.keyId);

    // The caller paid 2,000 from its 100,000.
    const before = await portfolioOf(owner.headers);
    expect(before.clientPortfolio.credit).toBe(98000);

    // The agent's token, with the caller's application key, opens 1,000 of AAPL in the agent's account.
    const agent = tokenHeaders(token.userToken);
    const open = await call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", agent, {
      InstrumentID: AAPL,
      IsBuy: true,
      Leverage: 1,
      Amount: 1000,
    });
    expect(open.status).toBe(200);
    const agentPos = (await portfolioOf(agent)).clientPortfolio.positions;
    expect(agentPos).toHaveLength(1);
    await settle();

    // The copy: 20% of 1,000 = 200 at the same rate, in the caller's account, with the mirror's id.
    const mine = await copiesIn(ap.mirrorId);
    const copy = mine[0];
    expect(mine).toHaveLength(1);
    expect(copy!.parentPositionID).toBe(agentPos[0]!.positionID);
    expect(copy!.amount).toBe(200);
    expect(copy!.openRate).toBe(agentPos[0]!.openRate);

    // Half the agent's position closes: half the copy closes too.
    const half = await call(
      "POST",
      `/api/v1/trading/execution/demo/market-close-orders/positions/${agentPos[0]!.positionID}`,
      agent,
      { InstrumentID: AAPL, UnitsToDeduct: agentPos[0]!.units / 2 },
    );
    expect(half.status).toBe(200);
    await settle();
    const halved = (await copiesIn(ap.mirrorId))[0];
    expect(halved!.units).toBeCloseTo(copy!.units / 2, 9);

    // The token has no agent-portfolio scope: it cannot manage portfolios.
    expect((await call("GET", AP, agent)).status).toBe(403);

    // Deleting the portfolio closes the copy and returns the money; the token stops working.
    expect((await call("DELETE", `${AP}/${ap.agentPortfolioId}`, owner.headers)).status).toBe(204);
    const after = (await portfolioOf(owner.headers)).clientPortfolio;
    expect(after.mirrors.filter((m) => m.mirrorID === ap.mirrorId)).toEqual([]);
    const account = await h.deps.db.kysely
      .selectFrom("demoAccounts")
      .selectAll()
      .where("userId", "=", owner.user.id)
      .executeTakeFirstOrThrow();
    // Conservation: cash − realised P/L is the starting balance again (nothing else is open).
    expect(Number(account.cashCents) - Number(account.realizedPnlCents)).toBe(Number(account.startingCents));
    expect((await call("GET", "/api/v1/trading/info/demo/portfolio", agent)).status).toBe(401);
    expect((await call("DELETE", `${AP}/${ap.agentPortfolioId}`, owner.headers)).status).toBe(404);
  });

  it("lists portfolios with their tokens; tokens are made, changed and revoked with upstream's errors", async () => {
    const created = (
      await call("POST", AP, owner.headers, {
        investmentAmountInUsd: 500,
        agentPortfolioName: "Listed1",
        userTokenName: "first",
        scopeIds: [201, 203],
      })
    ).body as Created;
    const id = created.agentPortfolioId;
    const list = (await call("GET", AP, owner.headers)).body as {
      agentPortfolios: { agentPortfolioId: string; userTokens: { scopeIds: number[]; scopeNames: string[] }[] }[];
    };
    const listed = list.agentPortfolios.find((p) => p.agentPortfolioId === id)!;
    expect(listed.userTokens[0]!.scopeIds).toEqual([201, 203]);

    const second = await call("POST", `${AP2}/${id}/user-tokens`, owner.headers, {
      userTokenName: "second",
      scopeNames: ["trade.demo:read"],
      ipsWhitelist: ["10.1.2.3"],
    });
    expect(second.status).toBe(201);
    const tokenId = (second.body as { userTokenId: string }).userTokenId;
    const secret = (second.body as { userToken: string }).userToken;
    // The allow-list is enforced: only 10.1.2.3 may use it.
    const reader = tokenHeaders(secret);
    expect((await call("GET", "/api/v1/trading/info/demo/portfolio", reader)).status).toBe(401);
    expect((await call("GET", "/api/v1/trading/info/demo/portfolio", reader, undefined, "10.1.2.3")).status).toBe(200);
    // ...and lifted by an update.
    expect(
      (await call("PATCH", `${AP2}/${id}/user-tokens/${tokenId}`, owner.headers, { ipsWhitelist: [] })).status,
    ).toBe(204);
    expect((await call("GET", "/api/v1/trading/info/demo/portfolio", reader)).status).toBe(200);
    // Read-only scopes: it may not trade.
    const trade = await call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", reader, {
      InstrumentID: AAPL,
      IsBuy: true,
      Leverage: 1,
      Amount: 100,
    });
    expect(trade.status).toBe(403);

    const errors: [string, string, unknown, number, string][] = [
      [
        "POST",
        `${AP2}/${id}/user-tokens`,
        { userTokenName: "second", scopeNames: ["trade.demo:read"] },
        409,
        "UserKeyNameAlreadyExists",
      ],
      [
        "POST",
        `${AP2}/${id}/user-tokens`,
        { userTokenName: "x", scopeNames: ["feed:write"] },
        403,
        "ScopeNameNotAllowed",
      ],
      ["POST", `${AP}/${id}/user-tokens`, { userTokenName: "x" }, 400, "ScopeIdsRequired"],
      [
        "POST",
        `${AP}/${id}/user-tokens`,
        { userTokenName: "x", scopeIds: [201], ipsWhitelist: ["1.2.3"] },
        400,
        "IpsWhitelistInvalidIp",
      ],
      ["PATCH", `${AP}/${id}/user-tokens/${tokenId}`, {}, 400, "NoChangesDetected"],
      ["PATCH", `${AP}/${id}/user-tokens/${tokenId}`, { scopeIds: [999] }, 400, "ScopeIdNotAllowed"],
      ["PATCH", `${AP}/${id}/user-tokens/${randomUUID()}`, { scopeIds: [201] }, 404, "NotFound"],
      [
        "POST",
        AP2,
        {
          investmentAmountInUsd: 500,
          agentPortfolioName: "short",
          userTokenName: "t",
          scopeNames: ["trade.demo:read"],
        },
        400,
        "ValidationFailed",
      ],
      [
        "POST",
        AP2,
        {
          investmentAmountInUsd: 5,
          agentPortfolioName: "Enough1",
          userTokenName: "t",
          scopeNames: ["trade.demo:read"],
        },
        400,
        "ValidationFailed",
      ],
      [
        "POST",
        AP2,
        { investmentAmountInUsd: 500, agentPortfolioName: "Enough1", userTokenName: "t", scopeNames: ["feed:read"] },
        400,
        "ScopeNameNotAllowed",
      ],
      ["DELETE", `${AP}/not-an-id`, undefined, 400, "ValidationFailed"],
      ["DELETE", `${AP}/${randomUUID()}`, undefined, 404, "NotFound"],
    ];
    for (const [method, url, body, status, code] of errors) {
      const res = await call(method as "POST", url, owner.headers, body);
      expect([url, res.status, (res.body as { errorCode: string }).errorCode]).toEqual([url, status, code]);
    }

    // Revoked: the token stops at once.
    expect((await call("DELETE", `${AP}/${id}/user-tokens/${tokenId}`, owner.headers)).status).toBe(204);
    expect((await call("GET", "/api/v1/trading/info/demo/portfolio", reader)).status).toBe(401);
    expect((await call("DELETE", `${AP}/${id}/user-tokens/${tokenId}`, owner.headers)).status).toBe(404);

    const scopes = (await call("GET", `${AP2}/user-tokens/scopes`, owner.headers)).body as {
      scopes: { name: string }[];
    };
    expect(scopes.scopes.map((s) => s.name)).toContain(`${prefix()}:trade.demo:write`);
  });

  it("answers 207 when the portfolio is made but no token can be (v1 without scopes)", async () => {
    const res = await call("POST", AP, owner.headers, {
      investmentAmountInUsd: 300,
      agentPortfolioName: "NoToken1",
      userTokenName: "t",
    });
    expect(res.status).toBe(207);
    expect((res.body as { userTokenCreated: boolean }).userTokenCreated).toBe(false);
  });

  it("opens each copy once however many times the open is handled (sweep, another instance)", async () => {
    const ap = (
      await call("POST", AP2, owner.headers, {
        investmentAmountInUsd: 1000,
        agentPortfolioName: "Twice01",
        userTokenName: "t",
        scopeNames: ["trade.demo:write"],
      })
    ).body as Created;
    const agent = tokenHeaders(ap.userTokens[0]!.userToken);
    await call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", agent, {
      InstrumentID: AAPL,
      IsBuy: false,
      Leverage: 2,
      Amount: 2000,
    });
    await Promise.all([settle(), mirrorEngineOf(h.deps)!.sweep(), mirrorEngineOf(h.deps)!.sweep()]);
    const copies = await copiesIn(ap.mirrorId);
    expect(copies).toHaveLength(1);
    expect(copies[0]!.amount).toBe(200);
  });
});
