import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { AAPL, BASE, BTC, type ContainerBody, client, ETH, ids, instrument, MSFT, TSLA } from "./support.js";

/** Small, configured limits: 2 watchlists of one's own, 3 items each, 4 watchlist reads a minute. */
const ENV = {
  WATCHLIST_MAX_WATCHLISTS: "2",
  WATCHLIST_MAX_ITEMS: "3",
  RATE_LIMIT_WATCHLIST: "4/60s",
  RATE_LIMIT_WRITES: "10000/60s",
  RATE_LIMIT_DEFAULT: "10000/60s",
};

describe.each(engines())("watchlist limits on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: ENV });
  });
  afterAll(async () => h.close());

  const newUser = async () => {
    const u = await h.user(["watchlist:write"]);
    return { ...u, api: client(h, u.headers) };
  };

  it("reports the configured limits in meta and refuses a watchlist beyond them (builtin ones not counted)", async () => {
    const u = await newUser();
    const first = await u.api.call("POST", `${BASE}?name=One`);
    expect(first.statusCode).toBe(201);
    expect((first.json() as ContainerBody).meta).toMatchObject({ maxWatchlistsLimit: 2, maxItemsInWatchlistLimit: 3 });
    expect((await u.api.call("POST", `${BASE}/newasdefault-watchlist?name=Two`)).statusCode).toBe(201);
    const third = await u.api.call("POST", `${BASE}?name=Three`);
    expect(third.statusCode).toBe(422);
    expect(third.json().errorCode).toBe("ValidationFailed");
    expect(third.json().errorMessage).toContain("at most 2");
    const list = (await u.api.call("GET", BASE)).json() as ContainerBody;
    expect(list.watchlists.map((w) => w.name)).toEqual(["My Watchlist", "Recently Invested", "One", "Two"]);
    // Deleting one makes room again.
    const one = list.watchlists.find((w) => w.name === "One")!;
    expect((await u.api.call("DELETE", `${BASE}/${one.watchlistId}`)).statusCode).toBe(204);
    expect((await u.api.call("POST", `${BASE}?name=Three`)).statusCode).toBe(201);
  });

  it("holds the limits under concurrent requests", async () => {
    const u = await newUser();
    const creates = await Promise.all(
      ["A", "B", "C", "D", "E"].map((name) => u.api.call("POST", `${BASE}?name=${name}`)),
    );
    expect(creates.map((r) => r.statusCode).sort()).toEqual([201, 201, 422, 422, 422]);
    const own = ((await u.api.call("GET", BASE)).json() as ContainerBody).watchlists.filter(
      (w) => w.isDefault === false,
    );
    expect(own.length).toBe(2);

    const id = own[0]!.watchlistId;
    const adds = await Promise.all(
      [AAPL, TSLA, MSFT, BTC, ETH].map((itemId) => u.api.call("POST", `${BASE}/${id}/items`, [instrument(itemId)])),
    );
    expect(adds.map((r) => r.statusCode).sort()).toEqual([201, 201, 201, 422, 422]);
  });

  it("refuses items beyond the per-watchlist limit, adding none of them; duplicates do not count", async () => {
    const u = await newUser();
    const created = (await u.api.call("POST", `${BASE}?name=Full`)).json() as ContainerBody;
    const id = created.watchlists[0]!.watchlistId;
    await u.api.add(id, [instrument(AAPL), instrument(TSLA)]);
    const over = await u.api.call("POST", `${BASE}/${id}/items`, [instrument(MSFT), instrument(BTC)]);
    expect(over.statusCode).toBe(422);
    expect(over.json().details[0]).toMatchObject({ field: "body" });
    expect(over.json().errorMessage).toContain("at most 3");
    // An item already there plus one new one fits exactly.
    const fits = await u.api.add(id, [instrument(AAPL), instrument(MSFT)]);
    expect(ids(fits.watchlists[0]!)).toEqual([AAPL, TSLA, MSFT]);
    expect((await u.api.call("POST", `${BASE}/${id}/items`, [instrument(ETH)])).statusCode).toBe(422);
    expect(
      (
        await u.api.call("POST", `${BASE}/default-watchlist/selected-items`, [
          instrument(AAPL),
          instrument(TSLA),
          instrument(MSFT),
          instrument(ETH),
        ])
      ).statusCode,
    ).toBe(422);
  });

  it("a Dynamic watchlist is cut at the item limit", async () => {
    const u = await newUser();
    const res = await u.api.call("POST", `${BASE}?name=Crypto&type=Dynamic&dynamicQuery=assetType%3DCrypto`);
    const w = (res.json() as ContainerBody).watchlists[0]!;
    expect(w.totalItems).toBe(3);
    expect(w.items.length).toBe(3);
  });

  it("the watchlist reads share one quota; writes do not spend it", async () => {
    const u = await newUser();
    const created = (await u.api.call("POST", `${BASE}?name=Q`)).json() as ContainerBody;
    const id = created.watchlists[0]!.watchlistId;
    const reads = [`${BASE}`, `${BASE}/${id}`, `${BASE}/default-watchlists/items`, `${BASE}/public/${u.user.gcid}`];
    for (const url of reads) {
      const res = await u.api.call("GET", url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["ratelimit-policy"]).toBe("4;w=60");
    }
    expect((await u.api.call("PUT", `${BASE}/${id}?newName=Still`)).statusCode).toBe(204);
    const over = await u.api.call("GET", `${BASE}/public/${u.user.gcid}/${id}`);
    expect(over.statusCode).toBe(429);
    expect(over.json().errorCode).toBe("TooManyRequests");
  });
});
