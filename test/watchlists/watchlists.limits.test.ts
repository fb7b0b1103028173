import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allItemRows } from "../../src/modules/watchlists/present-watchlists.js";
import { recordInvestment } from "../../src/modules/watchlists/record-investment.js";
import { watchlistsRepository } from "../../src/modules/watchlists/watchlists.repository.js";
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
    expect(third.json().errorMessage).toBe(
      "Query parameter name would name watchlist 3 of yours; a user may have at most 2 (builtin ones not counted).",
    );
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
    expect(over.json().details).toEqual([
      { field: "body", message: "The body would make 4 items; a watchlist holds at most 3 (it has 2)." },
    ]);
    expect(over.json().errorMessage).toBe(over.json().details[0].message);
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
  it("RecentlyInvested keeps the newest 3 distinct instruments, newest first, ranked 0..n-1", async () => {
    const u = await newUser();
    const invest = (instrumentId: number, day: number) =>
      recordInvestment(h.deps, {
        userId: u.user.id,
        instrumentId,
        occurredAt: `2026-01-${String(day).padStart(2, "0")}T00:00:00.000Z`,
      });
    for (const [n, id] of [AAPL, TSLA, MSFT, AAPL, BTC].entries()) await invest(id, n + 1);
    const recent = ((await u.api.call("GET", BASE)).json() as ContainerBody).watchlists.find(
      (w) => w.watchlistType === "RecentlyInvested",
    )!;
    expect(recent.totalItems).toBe(3);
    expect(recent.items.map((i) => [i.itemId, i.itemRank, i.itemAddedDate])).toEqual([
      [BTC, 0, "2026-01-05T00:00:00.000Z"],
      [AAPL, 1, "2026-01-04T00:00:00.000Z"],
      [MSFT, 2, "2026-01-03T00:00:00.000Z"],
    ]);
  });

  it("RecentlyInvested ranks continue across pages (page 1 of 2 per page starts at rank 2)", async () => {
    const u = await newUser();
    for (const instrumentId of [AAPL, TSLA, MSFT]) await recordInvestment(h.deps, { userId: u.user.id, instrumentId });
    const row = await watchlistsRepository(h.deps.db.kysely).findBuiltin(u.user.id, "RecentlyInvested");
    const res = await u.api.call("GET", `${BASE}/${row!.id}?itemsPerPage=2&pageNumber=1`);
    expect(res.statusCode).toBe(200);
    const w = (res.json() as ContainerBody).watchlists[0]!;
    expect(w.totalItems).toBe(3);
    expect(w.items.map((i) => [i.itemId, i.itemRank])).toEqual([[AAPL, 2]]);
  });

  it("RecentlyInvested matches a model (newest first, no duplicates, at most 3) for any sequence of investments", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(AAPL, TSLA, MSFT, BTC, ETH), { maxLength: 12 }), async (sequence) => {
        const u = await h.user(["watchlist:write"]);
        for (const instrumentId of sequence) await recordInvestment(h.deps, { userId: u.user.id, instrumentId });
        const model: number[] = [];
        for (const id of sequence) model.splice(0, model.length, id, ...model.filter((x) => x !== id));
        const row = await watchlistsRepository(h.deps.db.kysely).findBuiltin(u.user.id, "RecentlyInvested");
        if (sequence.length === 0) {
          expect(row).toBeUndefined();
          return;
        }
        const items = await allItemRows(h.deps, row!, 100);
        expect(items.map((i) => i.itemId)).toEqual(model.slice(0, 3));
        expect(items.map((i) => i.itemRank)).toEqual(model.slice(0, 3).map((_, n) => n));
      }),
      { numRuns: 25 },
    );
  });
});
