import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CuratedListsResponse,
  RecommendationsResponse,
} from "../../src/modules/watchlists/discovery/discovery.schemas.js";
import { engines, type Harness, type Headers, rid, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const AAPL = 1001;
const MSFT = 1003;
const NVDA = 1007;
const KO = 1010;
const AMD = 1015;
const SAP = 2003;
const BTC = 100000;

describe.each(engines())("curated lists and market recommendations on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(async () => h?.close());

  const call = (method: "GET" | "POST", url: string, headers: Headers, payload?: unknown) =>
    h.app.inject({
      method,
      url,
      headers: { ...headers, "x-request-id": rid() },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  const open = async (u: TestUser, instrumentId: number) => {
    const res = await call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", u.headers, {
      InstrumentID: instrumentId,
      IsBuy: true,
      Leverage: 1,
      Amount: 100,
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const recommendations = async (u: TestUser, count = 10): Promise<number[] | null> => {
    const res = await call("GET", `/api/v1/market-recommendations/${count}`, u.headers);
    if (res.statusCode === 204) {
      expect(res.body).toBe("");
      return null;
    }
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(RecommendationsResponse, res.json());
    expect(res.json().ResponseType).toBe("Instrument");
    return res.json().Recommendations;
  };

  it("curated lists: themed lists of the catalog's instruments", async () => {
    const u = await h.user(["watchlist:read"]);
    const res = await call("GET", "/api/v1/curated-lists", u.headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expectSchema(CuratedListsResponse, body);
    expect(body.curatedLists.length).toBeGreaterThanOrEqual(5);
    const bigTech = body.curatedLists.find((l: { name: string }) => l.name === "Big Tech");
    expect(bigTech.items).toEqual([MSFT, AAPL, NVDA, 1005, 1004, 1006].map((instrumentId) => ({ instrumentId })));
    expect(bigTech.listImageUrl).toBe(`/api/v1/market-data/avatars/${MSFT}/150x150.svg`);
    const uuids = body.curatedLists.map((l: { uuid: string }) => l.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    // Every listed instrument is in the catalog.
    const catalog = await call("GET", "/api/v1/market-data/instruments", (await h.user(["trade.demo:read"])).headers);
    const known = new Set(catalog.json().instrumentDisplayDatas.map((i: { instrumentID: number }) => i.instrumentID));
    for (const list of body.curatedLists) {
      for (const item of list.items) expect(known.has(item.instrumentId)).toBe(true);
    }
  });

  it("recommendations follow the caller's watchlists, positions and the people they follow", async () => {
    const me = await h.user(["watchlist:write", "feed:write", "trade.demo:write"]);
    const bob = await h.user(["trade.demo:write", "watchlist:read"]);
    const carol = await h.user(["trade.demo:write"]);
    // Nothing to go on yet.
    expect(await recommendations(me)).toBeNull();

    // Watching Apple: other technology stocks, largest first.
    const created = await call("POST", "/api/v1/watchlists?name=Tech", me.headers);
    expect(created.statusCode, created.body).toBe(201);
    const watchlistId = created.json().watchlists[0].watchlistId;
    const added = await call("POST", `/api/v1/watchlists/${watchlistId}/items`, me.headers, [
      { itemId: AAPL, itemType: "Instrument" },
    ]);
    expect(added.statusCode, added.body).toBe(201);
    expect(await recommendations(me)).toEqual([MSFT, NVDA, AMD, SAP]);

    // What the people I follow hold comes first: 2 points per holder.
    await open(bob, BTC);
    await open(bob, NVDA);
    await open(carol, NVDA);
    await open(carol, KO);
    for (const u of [bob, carol]) {
      const res = await call("POST", `/api/v1/users/${u.user.gcid}/follows`, me.headers);
      expect(res.statusCode, res.body).toBe(204);
    }
    expect(await recommendations(me)).toEqual([NVDA, BTC, KO, MSFT, AMD, SAP]);

    // What I hold is never recommended; itemsCount caps the list.
    await open(me, MSFT);
    expect(await recommendations(me)).toEqual([NVDA, BTC, KO, AMD, SAP]);
    expect(await recommendations(me, 2)).toEqual([NVDA, BTC]);

    // Another user's picture is their own.
    expect(await recommendations(bob)).not.toContain(BTC);
  });

  it("recommendations: itemsCount is 1 to 100 (422 otherwise); both reads need a watchlist scope", async () => {
    const u = await h.user(["watchlist:read"]);
    for (const count of ["0", "101", "ten"]) {
      expect((await call("GET", `/api/v1/market-recommendations/${count}`, u.headers)).statusCode).toBe(422);
    }
    const stranger = await h.user(["feed:read"]);
    expect((await call("GET", "/api/v1/market-recommendations/10", stranger.headers)).statusCode).toBe(403);
    expect((await call("GET", "/api/v1/curated-lists", stranger.headers)).statusCode).toBe(403);
  });
});
