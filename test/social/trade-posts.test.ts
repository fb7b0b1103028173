import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { loadUpstream, operationKey } from "../contract/upstream.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { AAPL, BTC, client, RW } from "./helpers.js";

const CHOICE = "/api/v1/social/trade-posts";
const OPEN = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const upstream = loadUpstream();

interface TradePost {
  id: string;
  type: string;
  message: { text: string };
  owner: { gcid: number };
  tags: { market: { internalId: number } }[];
  metadata: {
    trade?: {
      type: string;
      positionId: number;
      market: { internalId: number; symbolName: string };
      gain: number;
      rate: number;
      direction: string;
    };
  };
}

describe.each(engines())("trade posts on %s", (engine) => {
  let h: Harness;
  const api = client(() => h);
  const trader = (extra: string[] = []) => h.user([...RW, "trade.demo:write", ...extra]);
  const userFeed = async (u: TestUser, as: TestUser) =>
    (
      (await api.ok(as, "GET", `/api/v1/feeds/user/${u.user.gcid}?take=50`)) as { discussions: { post: TradePost }[] }
    ).discussions
      .map((d) => d.post)
      .filter((p) => p.type === "Trade");
  const open = async (u: TestUser, instrumentId: number, isBuy: boolean) =>
    (
      (await api.ok(u, "POST", OPEN, { InstrumentID: instrumentId, IsBuy: isBuy, Leverage: 1, Amount: 1000 })) as {
        orderForOpen: { positionID: number };
      }
    ).orderForOpen.positionID;

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
  });
  afterAll(async () => h?.close());

  it("is off until chosen, and the choice reads back", async () => {
    const u = await trader();
    expect(await api.ok(u, "GET", CHOICE)).toEqual({ enabled: false });
    await open(u, AAPL, true);
    expect(await userFeed(u, u)).toEqual([]);
    expect(await api.ok(u, "PUT", CHOICE, { enabled: true })).toEqual({ enabled: true });
    expect(await api.ok(u, "GET", CHOICE)).toEqual({ enabled: true });
    expect((await api.call(u, "PUT", CHOICE, { enabled: "yes" })).statusCode).toBe(422);
  });

  it("publishes an open and a close as Trade posts in upstream's shape, in the user's and the instrument's feeds", async () => {
    const u = await trader();
    const reader = await trader();
    await api.ok(u, "PUT", CHOICE, { enabled: true });
    const positionId = await open(u, AAPL, false);
    await api.ok(u, "POST", `/api/v1/trading/execution/demo/market-close-orders/positions/${positionId}`, {
      InstrumentID: AAPL,
    });
    const history = (await api.ok(u, "GET", "/api/v1/trading/info/trade/demo/history")) as {
      positionId: number;
      netProfit: number;
      closeRate: number;
    }[];
    const trade = history.find((t) => t.positionId === positionId)!;

    const posts = await userFeed(u, reader);
    expect(posts.map((p) => p.metadata.trade?.type)).toEqual(["Close", "Open"]);
    const [close, opened] = posts as [TradePost, TradePost];
    expect(opened.metadata.trade).toMatchObject({
      positionId,
      direction: "Short",
      gain: 0,
      market: { internalId: AAPL },
    });
    expect(opened.message.text).toMatch(/^Opened a short position in \$AAPL at /);
    expect(close.metadata.trade).toMatchObject({ positionId, direction: "Short", rate: trade.closeRate });
    expect(close.metadata.trade!.gain).toBeCloseTo((trade.netProfit / 1000) * 100, 2);
    expect(close.tags.map((t) => t.market.internalId)).toEqual([AAPL]);

    const one = await api.call(reader, "GET", `/api/v1/posts/${close.id}`);
    expect(upstream.problems(operationKey("GET", "/api/v1/posts/{postId}"), 200, one.body)).toEqual([]);
    expect(one.json().post.metadata.trade).toEqual(close.metadata.trade);

    const instrumentFeed = (await api.ok(reader, "GET", `/api/v1/feeds/instrument/${AAPL}?take=50`)) as {
      discussions: { post: { id: string } }[];
    };
    expect(instrumentFeed.discussions.map((d) => d.post.id)).toEqual(expect.arrayContaining([close.id, opened.id]));
  });

  it("publishes the copied trader's trades, never the copier's mirrored ones", async () => {
    const leader = await trader();
    const copier = await trader();
    await api.ok(leader, "PUT", CHOICE, { enabled: true });
    await api.ok(copier, "PUT", CHOICE, { enabled: true });
    await api.ok(copier, "POST", "/api/v1/copy-trading/copies", { username: leader.user.username, amount: 5000 }, 201);
    await open(leader, BTC, true);
    await mirrorEngineOf(h.deps)!.idle();
    const mirrored = (await api.ok(copier, "GET", "/api/v1/trading/info/demo/portfolio")) as {
      clientPortfolio: { mirrors: { positions: unknown[] }[] };
    };
    expect(mirrored.clientPortfolio.mirrors[0]!.positions).toHaveLength(1);
    expect((await userFeed(leader, copier)).map((p) => p.metadata.trade?.type)).toEqual(["Open"]);
    expect(await userFeed(copier, leader)).toEqual([]);
  });
});
