import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordInvestment } from "../../src/modules/watchlists/record-investment.js";
import { Watchlist, WatchlistItems } from "../../src/modules/watchlists/watchlists.schemas.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";
import {
  AAPL,
  BASE,
  BTC,
  type ContainerBody,
  client,
  ETH,
  ids,
  instrument,
  MSFT,
  NVDA,
  TSLA,
  UNKNOWN,
  type WatchlistBody,
} from "./support.js";

// Functional tests make many writes per user; the quotas themselves are tested in watchlists.limits.test.ts.
const ENV = { RATE_LIMIT_WRITES: "10000/60s", RATE_LIMIT_DEFAULT: "10000/60s", RATE_LIMIT_WATCHLIST: "10000/60s" };

describe.each(engines())("watchlists over HTTP on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: ENV });
  });
  afterAll(async () => h.close());

  const newUser = async (scopes = ["watchlist:read", "watchlist:write"]) => {
    const u = await h.user(scopes);
    return { ...u, api: client(h, u.headers) };
  };

  it("GET /watchlists creates the builtin Default and RecentlyInvested watchlists, once", async () => {
    const u = await newUser();
    const body = await u.api.list();
    expect(body).toMatchObject({
      status: 200,
      isSucceeded: true,
      meta: { pageNumber: 0, itemsPerPage: 100, maxItemsInWatchlistLimit: 1000, maxWatchlistsLimit: 10 },
    });
    expect(body.exception).toBeUndefined();
    expect(body.watchlists.map((w) => [w.watchlistType, w.isDefault, w.isUserSelectedDefault, w.Gcid])).toEqual([
      ["Default", true, true, u.user.gcid],
      ["RecentlyInvested", true, false, u.user.gcid],
    ]);
    expect(body.watchlists.every((w) => w.totalItems === 0 && w.items.length === 0 && !w.isPublic)).toBe(true);
    expect(body.watchlists.every((w) => w.relatedAssets === null && w.dynamicUrl === null)).toBe(true);
    // Reading again (also concurrently) creates nothing more.
    const again = await Promise.all([u.api.list(), u.api.list()]);
    for (const b of again)
      expect(b.watchlists.map((w) => w.watchlistId)).toEqual(body.watchlists.map((w) => w.watchlistId));
  });

  it("ensureBuiltinWatchlists=false leaves a new user's list empty", async () => {
    const u = await newUser();
    const body = await u.api.list("?ensureBuiltinWatchlists=false");
    expect(body.watchlists).toEqual([]);
  });

  it("creates a Static watchlist (201, container) and adds items with their market metadata", async () => {
    const u = await newUser();
    const w = await u.api.create("Tech");
    expect(w).toMatchObject({
      name: "Tech",
      watchlistType: "Static",
      Gcid: u.user.gcid,
      isDefault: false,
      isUserSelectedDefault: false,
      totalItems: 0,
      dynamicUrl: null,
      isPublic: false,
    });
    const added = await u.api.add(w.watchlistId, [instrument(AAPL), instrument(MSFT, { itemAddedReason: "Research" })]);
    expect(added.status).toBe(201);
    expect(added.exception).toBeUndefined();
    const after = added.watchlists[0]!;
    expect(after.totalItems).toBe(2);
    expect(after.items.map((i) => [i.itemId, i.itemType, i.itemRank, i.itemAddedReason])).toEqual([
      [AAPL, "Instrument", 0, "Manual"],
      [MSFT, "Instrument", 1, "Research"],
    ]);
    expect(after.items[0]!.market).toEqual({
      id: String(AAPL),
      symbolName: "AAPL",
      displayName: "Apple",
      assetTypeId: 5,
      assetTypeSubCategoryId: 501,
      exchangeId: 4,
      hasExpirationDate: false,
      avatar: expect.objectContaining({
        small: expect.any(String),
        medium: expect.any(String),
        large: expect.any(String),
      }),
    });
    expect(Date.parse(after.items[0]!.itemAddedDate)).not.toBeNaN();
  });

  it("lists unknown items in exception.invalidItems and adds the rest; duplicates are neither duplicated nor errors", async () => {
    const u = await newUser();
    const w = await u.api.create("Mixed");
    await u.api.add(w.watchlistId, [instrument(AAPL)]);
    const body = await u.api.add(w.watchlistId, [
      instrument(AAPL, { itemRank: 50 }), // already there: left as it was
      instrument(TSLA),
      instrument(TSLA), // twice in one request
      instrument(UNKNOWN),
    ]);
    expect(body.isSucceeded).toBe(true);
    expect(body.exception).toMatchObject({ invalidItems: [String(UNKNOWN)], reason: "InvalidItems" });
    expect(body.exception!.message).toContain(String(UNKNOWN));
    const after = await u.api.get(w.watchlistId);
    expect(after.totalItems).toBe(2);
    expect(after.items.map((i) => [i.itemId, i.itemRank])).toEqual([
      [AAPL, 0],
      [TSLA, 1],
    ]);
  });

  it("reads request bodies case-insensitively (ItemID, itemtype...)", async () => {
    const u = await newUser();
    const w = await u.api.create("Casing");
    const body = await u.api.add(w.watchlistId, [
      { ItemID: BTC, ItemType: "Instrument" },
      { itemid: ETH, ITEMTYPE: "Instrument", ItemRank: 9 },
    ]);
    // Unranked items go after everything, the explicitly ranked one included.
    expect(body.watchlists[0]!.items.map((i) => [i.itemId, i.itemRank])).toEqual([
      [ETH, 9],
      [BTC, 10],
    ]);
  });

  it("an added item with an itemRank is placed at that position, the others move down", async () => {
    const u = await newUser();
    const w = await u.api.create("Positions");
    await u.api.add(w.watchlistId, [instrument(AAPL), instrument(TSLA), instrument(MSFT)]);
    const body = await u.api.add(w.watchlistId, [instrument(NVDA, { itemRank: 1 }), instrument(BTC)]);
    expect(body.watchlists[0]!.items.map((i) => [i.itemId, i.itemRank])).toEqual([
      [AAPL, 0],
      [NVDA, 1],
      [TSLA, 2],
      [MSFT, 3],
      [BTC, 4],
    ]);
  });

  it("adds Person items by gcid and rejects unknown persons", async () => {
    const u = await newUser();
    const other = await h.user(["user-info:read"]);
    const w = await u.api.create("People");
    const body = await u.api.add(w.watchlistId, [
      { itemId: other.user.gcid, itemType: "Person" },
      { itemId: 987_654_321, itemType: "Person" },
    ]);
    expect(body.exception?.invalidItems).toEqual(["987654321"]);
    expect(body.watchlists[0]!.items).toEqual([
      expect.objectContaining({ itemId: other.user.gcid, itemType: "Person" }),
    ]);
    expect(body.watchlists[0]!.items[0]!.market).toBeUndefined();
  });

  it("422 for malformed items: missing itemId, unknown itemType, empty array", async () => {
    const u = await newUser();
    const w = await u.api.create("Bad");
    for (const payload of [[{ itemType: "Instrument" }], [{ itemId: AAPL, itemType: "Bond" }], []]) {
      const res = await u.api.call("POST", `${BASE}/${w.watchlistId}/items`, payload);
      expect(res.statusCode).toBe(422);
      expect(res.json().errorCode).toBe("ValidationFailed");
      expect(res.json().details[0].field).toMatch(/^body/);
    }
  });

  it("paginates GET /watchlists/{id} with pageNumber and itemsPerPage", async () => {
    const u = await newUser();
    const w = await u.api.create("Paged");
    const all = [AAPL, TSLA, MSFT, NVDA, BTC];
    await u.api.add(
      w.watchlistId,
      all.map((id) => instrument(id)),
    );
    const res = await u.api.call("GET", `${BASE}/${w.watchlistId}?pageNumber=1&itemsPerPage=2`);
    const body = res.json() as ContainerBody;
    expect(body.meta).toMatchObject({ pageNumber: 1, itemsPerPage: 2 });
    expect(body.watchlists[0]!.totalItems).toBe(5);
    expect(ids(body.watchlists[0]!)).toEqual([MSFT, NVDA]);
    expect(ids(await u.api.get(w.watchlistId, "?pageNumber=2&itemsPerPage=2"))).toEqual([BTC]);
    expect(ids(await u.api.get(w.watchlistId, "?pageNumber=9&itemsPerPage=2"))).toEqual([]);
    const list = await u.api.list("?itemsPerPageForSingle=3");
    const paged = list.watchlists.find((x) => x.watchlistId === w.watchlistId)!;
    expect(ids(paged)).toEqual([AAPL, TSLA, MSFT]);
    expect(paged.totalItems).toBe(5);
    expect(list.meta.itemsPerPage).toBe(3);
  });

  it("422 when a pagination parameter is out of bounds, naming it", async () => {
    const u = await newUser();
    const w = await u.api.create("Bounds");
    const cases: [string, string][] = [
      [`${BASE}/${w.watchlistId}?itemsPerPage=0`, "querystring/itemsPerPage"],
      [`${BASE}/${w.watchlistId}?itemsPerPage=1001`, "querystring/itemsPerPage"],
      [`${BASE}/${w.watchlistId}?pageNumber=-1`, "querystring/pageNumber"],
      [`${BASE}/${w.watchlistId}?pageNumber=abc`, "querystring/pageNumber"],
      [`${BASE}?itemsPerPageForSingle=0`, "querystring/itemsPerPageForSingle"],
      [`${BASE}?itemsPerPageForSingle=1001`, "querystring/itemsPerPageForSingle"],
      [`${BASE}/public/${u.user.gcid}?itemsPerPageForSingle=1001`, "querystring/itemsPerPageForSingle"],
      [`${BASE}/public/${u.user.gcid}/${w.watchlistId}?itemsPerPage=1001`, "querystring/itemsPerPage"],
      [`${BASE}/public/${u.user.gcid}/${w.watchlistId}?pageNumber=-1`, "querystring/pageNumber"],
      [`${BASE}/default-watchlists/items?itemsPerPage=0`, "querystring/itemsPerPage"],
      [`${BASE}/default-watchlists/items?itemsLimit=0`, "querystring/itemsLimit"],
      [`${BASE}/public/not-a-number`, "params/userId"],
    ];
    for (const [url, field] of cases) {
      const res = await u.api.call("GET", url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().errorCode).toBe("ValidationFailed");
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    // The bounds themselves are accepted.
    for (const url of [`${BASE}/${w.watchlistId}?itemsPerPage=1&pageNumber=0`, `${BASE}?itemsPerPageForSingle=1000`]) {
      expect((await u.api.call("GET", url)).statusCode).toBe(200);
    }
  });

  it("another user's private watchlist is 404 to every operation, and unchanged", async () => {
    const owner = await newUser();
    const intruder = await newUser();
    const w = await owner.api.create("Secret");
    await owner.api.add(w.watchlistId, [instrument(AAPL)]);
    const attempts: [string, string, unknown?][] = [
      ["GET", `${BASE}/${w.watchlistId}`],
      ["PUT", `${BASE}/${w.watchlistId}?newName=Mine`],
      ["DELETE", `${BASE}/${w.watchlistId}`],
      ["POST", `${BASE}/${w.watchlistId}/items`, [instrument(TSLA)]],
      ["PUT", `${BASE}/${w.watchlistId}/items`, [instrument(AAPL, { itemRank: 5 })]],
      ["DELETE", `${BASE}/${w.watchlistId}/items`, [instrument(AAPL)]],
      ["PUT", `${BASE}/rank/${w.watchlistId}?newRank=0`],
      ["PUT", `${BASE}/setUserSelectedUserDefault/${w.watchlistId}`],
      ["PUT", `${BASE}/${w.watchlistId}/visibility?isPublic=true`],
      ["GET", `${BASE}/public/${owner.user.gcid}/${w.watchlistId}`],
    ];
    for (const [method, url, payload] of attempts) {
      const res = await intruder.api.call(method as "GET", url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().errorCode).toBe("NotFound");
    }
    const still = await owner.api.get(w.watchlistId);
    expect(still).toMatchObject({ name: "Secret", isPublic: false, totalItems: 1, isUserSelectedDefault: false });
    const publicList = (await intruder.api.call("GET", `${BASE}/public/${owner.user.gcid}`)).json() as ContainerBody;
    expect(publicList.watchlists).toEqual([]);
  });

  it("publishes and hides a watchlist: public reads show only published ones, with the owner's Gcid", async () => {
    const owner = await newUser();
    const reader = await newUser(["watchlist:read"]);
    const shown = await owner.api.create("Shown");
    const hidden = await owner.api.create("Hidden");
    await owner.api.add(shown.watchlistId, [instrument(AAPL), instrument(BTC)]);
    await owner.api.add(hidden.watchlistId, [instrument(TSLA)]);

    const publish = await owner.api.call("PUT", `${BASE}/${shown.watchlistId}/visibility?isPublic=true`);
    expect(publish.statusCode).toBe(204);
    expect((await owner.api.get(shown.watchlistId)).isPublic).toBe(true);

    const list = await reader.api.call("GET", `${BASE}/public/${owner.user.gcid}?itemsPerPageForSingle=1`);
    expect(list.statusCode).toBe(200);
    const body = list.json() as ContainerBody;
    expect(body.watchlists.map((w) => [w.name, w.Gcid, w.totalItems, ids(w)])).toEqual([
      ["Shown", owner.user.gcid, 2, [AAPL]],
    ]);
    expect(body.meta.itemsPerPage).toBe(1);

    const single = await reader.api.call(
      "GET",
      `${BASE}/public/${owner.user.gcid}/${shown.watchlistId}?pageNumber=0&itemsPerPage=10`,
    );
    expect(single.statusCode).toBe(200);
    const bare = single.json() as WatchlistBody;
    expectSchema(Watchlist, bare);
    expect(bare).toMatchObject({
      watchlistId: shown.watchlistId,
      name: "Shown",
      Gcid: owner.user.gcid,
      isPublic: true,
    });
    expect(ids(bare)).toEqual([AAPL, BTC]);
    expect(bare.items[1]!.market?.symbolName).toBe("BTC");

    // The hidden one, and one of the owner's read under another user's gcid, stay 404.
    expect((await reader.api.call("GET", `${BASE}/public/${owner.user.gcid}/${hidden.watchlistId}`)).statusCode).toBe(
      404,
    );
    expect((await reader.api.call("GET", `${BASE}/public/${reader.user.gcid}/${shown.watchlistId}`)).statusCode).toBe(
      404,
    );

    await owner.api.call("PUT", `${BASE}/${shown.watchlistId}/visibility?isPublic=false`);
    expect((await reader.api.call("GET", `${BASE}/public/${owner.user.gcid}/${shown.watchlistId}`)).statusCode).toBe(
      404,
    );
    expect(
      ((await reader.api.call("GET", `${BASE}/public/${owner.user.gcid}`)).json() as ContainerBody).watchlists,
    ).toEqual([]);
  });

  it("creates a watchlist public at once with isPublic=true", async () => {
    const owner = await newUser();
    const w = await owner.api.create("Open", "&isPublic=true");
    expect(w.isPublic).toBe(true);
    const reader = await newUser(["demo:read"]);
    expect((await reader.api.call("GET", `${BASE}/public/${owner.user.gcid}/${w.watchlistId}`)).statusCode).toBe(200);
  });

  it("public reads: 404 for an unknown user and for a private-profile user", async () => {
    const u = await newUser();
    const unknown = await u.api.call("GET", `${BASE}/public/2000000000`);
    expect(unknown.statusCode).toBe(404);
    const { createUser } = await import("../../src/modules/identity/create-user.js");
    const { withActor } = await import("../../src/modules/context.js");
    const { systemActor } = await import("../../src/core/actor.js");
    const hiddenUser = await createUser(withActor(h.deps, systemActor("test")), {
      username: `priv_${randomUUID().slice(0, 8)}`,
      isPrivate: true,
    });
    expect((await u.api.call("GET", `${BASE}/public/${hiddenUser.gcid}`)).statusCode).toBe(404);
  });

  it("renames (204), trims the name, and 422 for an empty or too long one", async () => {
    const u = await newUser();
    const w = await u.api.create("Old");
    expect(
      (await u.api.call("PUT", `${BASE}/${w.watchlistId}?newName=${encodeURIComponent("  New name ")}`)).statusCode,
    ).toBe(204);
    expect((await u.api.get(w.watchlistId)).name).toBe("New name");
    for (const [bad, message] of [
      // The use case's rule, reported on its domain field `name`, named on the wire.
      ["%20%20", "Query parameter newName must not be empty or only spaces."],
      // The schema's bound.
      ["x".repeat(101), "Query parameter newName must be at most 100 characters long."],
    ]) {
      const res = await u.api.call("PUT", `${BASE}/${w.watchlistId}?newName=${bad}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([{ field: "querystring/newName", message }]);
      expect(res.json().errorMessage).toBe(message);
    }
    const missing = await u.api.call("PUT", `${BASE}/${w.watchlistId}`);
    expect(missing.statusCode).toBe(422);
    expect((await u.api.call("POST", `${BASE}?name=${"y".repeat(101)}`)).statusCode).toBe(422);
  });

  it("changes rank: watchlists are listed by watchlistRank", async () => {
    const u = await newUser();
    await u.api.list();
    const a = await u.api.create("A");
    const b = await u.api.create("B");
    expect([a.watchlistRank, b.watchlistRank]).toEqual([2, 3]);
    expect((await u.api.call("PUT", `${BASE}/rank/${b.watchlistId}?newRank=0`)).statusCode).toBe(204);
    const moved = (await u.api.list()).watchlists;
    // Moved to the top: the others from rank 0 on moved down one, keeping their order.
    expect(moved.map((w) => [w.name, w.watchlistRank])).toEqual([
      ["B", 0],
      ["My Watchlist", 1],
      ["Recently Invested", 2],
      ["A", 3],
    ]);
    expect((await u.api.call("PUT", `${BASE}/rank/${b.watchlistId}?newRank=500`)).statusCode).toBe(204);
    expect((await u.api.list()).watchlists.map((w) => w.name)).toEqual(["My Watchlist", "Recently Invested", "A", "B"]);
    const bad = await u.api.call("PUT", `${BASE}/rank/${b.watchlistId}?newRank=-1`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().details[0].field).toBe("querystring/newRank");
  });

  it("setUserSelectedUserDefault leaves exactly one selected default; newasdefault-watchlist selects the new one", async () => {
    const u = await newUser();
    await u.api.list();
    const a = await u.api.create("A");
    const res = await u.api.call("PUT", `${BASE}/setUserSelectedUserDefault/${a.watchlistId}`);
    expect(res.statusCode).toBe(200);
    expect((res.json() as ContainerBody).watchlists[0]).toMatchObject({
      watchlistId: a.watchlistId,
      isUserSelectedDefault: true,
    });
    let selected = (await u.api.list()).watchlists.filter((w) => w.isUserSelectedDefault).map((w) => w.name);
    expect(selected).toEqual(["A"]);

    const created = await u.api.call("POST", `${BASE}/newasdefault-watchlist?name=Fresh`);
    expect(created.statusCode).toBe(201);
    expect((created.json() as ContainerBody).watchlists[0]).toMatchObject({
      name: "Fresh",
      isUserSelectedDefault: true,
    });
    selected = (await u.api.list()).watchlists.filter((w) => w.isUserSelectedDefault).map((w) => w.name);
    expect(selected).toEqual(["Fresh"]);
  });

  it("deletes a watchlist (204) with its items; the selected default falls back to Default; builtin ones are 409", async () => {
    const u = await newUser();
    const before = await u.api.list();
    const def = before.watchlists.find((w) => w.watchlistType === "Default")!;
    const gone = await u.api.create("Gone", "");
    await u.api.add(gone.watchlistId, [instrument(AAPL)]);
    await u.api.call("PUT", `${BASE}/setUserSelectedUserDefault/${gone.watchlistId}`);
    expect((await u.api.call("DELETE", `${BASE}/${gone.watchlistId}`)).statusCode).toBe(204);
    expect((await u.api.call("GET", `${BASE}/${gone.watchlistId}`)).statusCode).toBe(404);
    expect((await u.api.call("DELETE", `${BASE}/${gone.watchlistId}`)).statusCode).toBe(404);
    const after = await u.api.list();
    expect(after.watchlists.filter((w) => w.isUserSelectedDefault).map((w) => w.watchlistId)).toEqual([
      def.watchlistId,
    ]);
    for (const builtin of before.watchlists) {
      const res = await u.api.call("DELETE", `${BASE}/${builtin.watchlistId}`);
      expect(res.statusCode).toBe(409);
      expect(res.json().errorCode).toBe("Conflict");
    }
  });

  it("updates item ranks: 204 when all applied, 200 with invalidItems for items not in the watchlist", async () => {
    const u = await newUser();
    const w = await u.api.create("Ranks");
    await u.api.add(w.watchlistId, [instrument(AAPL), instrument(TSLA), instrument(MSFT)]);
    const ok = await u.api.call("PUT", `${BASE}/${w.watchlistId}/items`, [
      instrument(MSFT, { itemRank: 0 }),
      instrument(AAPL, { itemRank: 5, itemAddedReason: "Earnings" }),
    ]);
    expect(ok.statusCode).toBe(204);
    expect(ok.body).toBe("");
    const after = await u.api.get(w.watchlistId);
    // A rank is a position: MSFT moved to 0 pushed the others down one; AAPL went to 5.
    expect(after.items.map((i) => [i.itemId, i.itemRank])).toEqual([
      [MSFT, 0],
      [TSLA, 2],
      [AAPL, 5],
    ]);
    expect(after.items[2]!.itemAddedReason).toBe("Earnings");

    const partial = await u.api.call("PUT", `${BASE}/${w.watchlistId}/items`, [
      instrument(TSLA, { itemRank: 7 }),
      instrument(NVDA, { itemRank: 1 }),
    ]);
    expect(partial.statusCode).toBe(200);
    const body = partial.json() as ContainerBody;
    expect(body.exception?.invalidItems).toEqual([String(NVDA)]);
    expect(body.watchlists[0]!.items.find((i) => i.itemId === TSLA)!.itemRank).toBe(7);
    expect(body.watchlists[0]!.totalItems).toBe(3);
  });

  it("removes items: 204, absent ones are a no-op, unknown instruments are listed in invalidItems", async () => {
    const u = await newUser();
    const w = await u.api.create("Remove");
    await u.api.add(w.watchlistId, [instrument(AAPL), instrument(TSLA), instrument(MSFT)]);
    const ok = await u.api.call("DELETE", `${BASE}/${w.watchlistId}/items`, [instrument(AAPL), instrument(NVDA)]);
    expect(ok.statusCode).toBe(204);
    expect(ids(await u.api.get(w.watchlistId))).toEqual([TSLA, MSFT]);
    const partial = await u.api.call("DELETE", `${BASE}/${w.watchlistId}/items`, [
      instrument(TSLA),
      instrument(UNKNOWN),
    ]);
    expect(partial.statusCode).toBe(200);
    const body = partial.json() as ContainerBody;
    expect(body.exception?.invalidItems).toEqual([String(UNKNOWN)]);
    expect(ids(body.watchlists[0]!)).toEqual([MSFT]);
  });

  it("a Dynamic watchlist's items are the market-data query's matches, computed on read", async () => {
    const u = await newUser();
    const w = await u.api.create("Crypto", `&type=Dynamic&dynamicQuery=${encodeURIComponent("assettype=crypto")}`);
    expect(w.watchlistType).toBe("Dynamic");
    expect(w.dynamicUrl).toBe("/api/v1/market-data/search?assetType=crypto");
    expect(w.totalItems).toBeGreaterThanOrEqual(7);
    expect(w.items.length).toBe(w.totalItems);
    expect(ids(w)).toEqual(expect.arrayContaining([BTC, ETH]));
    expect(w.items.every((i) => i.market?.assetTypeId === 10 && i.itemAddedReason === "Dynamic")).toBe(true);
    expect(w.items.map((i) => i.itemRank)).toEqual(w.items.map((_, n) => n));

    const search = await u.api.create(
      "Apple",
      `&type=Dynamic&dynamicQuery=${encodeURIComponent("/api/v1/market-data/search?searchText=AAPL")}`,
    );
    expect(ids(search)[0]).toBe(AAPL);
    const page = await u.api.get(w.watchlistId, "?pageNumber=1&itemsPerPage=2");
    expect(page.items.length).toBe(2);
    expect(ids(page)).toEqual(ids(w).slice(2, 4));

    const edit = await u.api.call("POST", `${BASE}/${w.watchlistId}/items`, [instrument(AAPL)]);
    expect(edit.statusCode).toBe(409);
  });

  it("422 for a Dynamic watchlist without a usable dynamicQuery, or a Static one with one", async () => {
    const u = await newUser();
    const bad = [
      "&type=Dynamic",
      `&type=Dynamic&dynamicQuery=${encodeURIComponent("colour=blue")}`,
      `&type=Dynamic&dynamicQuery=${encodeURIComponent("/api/v1/feeds/news?searchText=x")}`,
      `&type=Dynamic&dynamicQuery=${encodeURIComponent("assetTypeId=ten")}`,
      `&type=Static&dynamicQuery=${encodeURIComponent("searchText=x")}`,
      "&type=Smart",
    ];
    for (const extra of bad) {
      const res = await u.api.call("POST", `${BASE}?name=X${extra}`);
      expect(res.statusCode, extra).toBe(422);
      expect(res.json().details[0].field).toMatch(/^querystring\/(dynamicQuery|type)$/);
    }
    expect((await u.api.list("?ensureBuiltinWatchlists=false")).watchlists).toEqual([]);
  });

  it("default-watchlist/selected-items fills Default; default-watchlists/items returns a bare array", async () => {
    const u = await newUser();
    const res = await u.api.call("POST", `${BASE}/default-watchlist/selected-items`, [
      instrument(AAPL),
      instrument(BTC),
      instrument(UNKNOWN),
    ]);
    expect(res.statusCode).toBe(201);
    const body = res.json() as ContainerBody;
    expect(body.watchlists[0]).toMatchObject({
      watchlistType: "Default",
      isDefault: true,
      isUserSelectedDefault: true,
    });
    expect(ids(body.watchlists[0]!)).toEqual([AAPL, BTC]);
    expect(body.exception?.invalidItems).toEqual([String(UNKNOWN)]);

    // A second call adds to the same Default watchlist.
    await u.api.call("POST", `${BASE}/default-watchlist/selected-items`, [instrument(TSLA), instrument(AAPL)]);
    const items = await u.api.call("GET", `${BASE}/default-watchlists/items`);
    expect(items.statusCode).toBe(200);
    expectSchema(WatchlistItems, items.json());
    expect(items.json().map((i: { itemId: number }) => i.itemId)).toEqual([AAPL, BTC, TSLA]);
    expect(items.json()[0].market.symbolName).toBe("AAPL");
    const limited = await u.api.call("GET", `${BASE}/default-watchlists/items?itemsLimit=2`);
    expect(limited.json().map((i: { itemId: number }) => i.itemId)).toEqual([AAPL, BTC]);
    const perPage = await u.api.call("GET", `${BASE}/default-watchlists/items?itemsLimit=5&itemsPerPage=1`);
    expect(perPage.json().map((i: { itemId: number }) => i.itemId)).toEqual([AAPL]);
    expect((await u.api.list()).watchlists.filter((w) => w.watchlistType === "Default").length).toBe(1);
  });

  it("default-watchlists/items puts the selected default first and lists each item once", async () => {
    const u = await newUser();
    await u.api.call("POST", `${BASE}/default-watchlist/selected-items`, [instrument(AAPL)]);
    const mine = await u.api.create("Mine", "");
    await u.api.add(mine.watchlistId, [instrument(ETH), instrument(AAPL)]);
    await u.api.call("PUT", `${BASE}/setUserSelectedUserDefault/${mine.watchlistId}`);
    const other = await u.api.create("Not default", "");
    await u.api.add(other.watchlistId, [instrument(NVDA)]);
    const items = (await u.api.call("GET", `${BASE}/default-watchlists/items`)).json();
    expect(items.map((i: { itemId: number }) => i.itemId)).toEqual([ETH, AAPL]);
  });

  it("RecentlyInvested follows opened positions: newest first, each instrument once, read-only", async () => {
    const u = await newUser();
    const owner = { userId: u.user.id, gcid: u.user.gcid };
    await recordInvestment(h.deps, {
      userId: owner.userId,
      instrumentId: AAPL,
      occurredAt: "2026-01-01T00:00:00.000Z",
    });
    await recordInvestment(h.deps, { userId: owner.userId, instrumentId: BTC, occurredAt: "2026-01-02T00:00:00.000Z" });
    await recordInvestment(h.deps, {
      userId: owner.userId,
      instrumentId: AAPL,
      occurredAt: "2026-01-03T00:00:00.000Z",
    });
    const list = await u.api.list();
    const recent = list.watchlists.find((w) => w.watchlistType === "RecentlyInvested")!;
    expect(recent.items.map((i) => [i.itemId, i.itemRank, i.itemAddedReason, i.itemAddedDate])).toEqual([
      [AAPL, 0, "Invested", "2026-01-03T00:00:00.000Z"],
      [BTC, 1, "Invested", "2026-01-02T00:00:00.000Z"],
    ]);
    expect(list.watchlists.filter((w) => w.watchlistType === "RecentlyInvested").length).toBe(1);
    const edit = await u.api.call("DELETE", `${BASE}/${recent.watchlistId}/items`, [instrument(AAPL)]);
    expect(edit.statusCode).toBe(409);
    // Its instruments are among the default watchlists' items.
    const items = (await u.api.call("GET", `${BASE}/default-watchlists/items`)).json();
    expect(items.map((i: { itemId: number }) => i.itemId)).toEqual([AAPL, BTC]);
  });

  it("is subscribed to PositionOpened: a published position puts its instrument on top of RecentlyInvested", async () => {
    const u = await newUser();
    await h.deps.bus.publish([
      {
        type: "PositionOpened",
        userId: u.user.id,
        positionId: 1,
        instrumentId: ETH,
        isBuy: true,
        openRate: 3500,
        stopLossRate: 0,
        takeProfitRate: 0,
        isTslEnabled: false,
        occurredAt: "2026-02-01T00:00:00.000Z",
      },
    ]);
    const recent = (await u.api.list()).watchlists.find((w) => w.watchlistType === "RecentlyInvested")!;
    expect(recent.items.map((i) => [i.itemId, i.itemAddedDate, i.market?.symbolName])).toEqual([
      [ETH, "2026-02-01T00:00:00.000Z", "ETH"],
    ]);
  });

  it("a demo market order opened over HTTP puts its instrument on top of RecentlyInvested", async () => {
    const u = await newUser(["watchlist:read", "demo:write"]);
    const open = (InstrumentID: number) =>
      u.api.call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", {
        InstrumentID,
        IsBuy: true,
        Leverage: 1,
        Amount: 500,
      });
    expect((await open(TSLA)).statusCode).toBe(200);
    expect((await open(BTC)).statusCode).toBe(200);
    const recent = (await u.api.list()).watchlists.find((w) => w.watchlistType === "RecentlyInvested")!;
    expect(recent.items.map((i) => [i.itemId, i.itemRank, i.itemAddedReason])).toEqual([
      [BTC, 0, "Invested"],
      [TSLA, 1, "Invested"],
    ]);
  });

  it("addRelatedAssets=true fills relatedAssets with instruments of the same sub-categories", async () => {
    const u = await newUser();
    const w = await u.api.create("Related");
    await u.api.add(w.watchlistId, [instrument(AAPL), instrument(MSFT)]);
    const body = await u.api.list("?addRelatedAssets=true");
    const related = body.watchlists.find((x) => x.watchlistId === w.watchlistId)!.relatedAssets!;
    // An empty watchlist has nothing to relate to.
    expect(body.watchlists.find((x) => x.watchlistType === "Default")!.relatedAssets).toEqual([]);
    expect(related).toEqual(expect.arrayContaining([NVDA]));
    expect(related).not.toContain(AAPL);
    expect(related).not.toContain(MSFT);
    expect(related).not.toContain(BTC);
    expect(related.length).toBeLessThanOrEqual(10);
    expect((await u.api.list()).watchlists.every((x) => x.relatedAssets === null)).toBe(true);
  });

  it("accepts the account scopes: a demo:write key creates, a real:read key reads", async () => {
    const writer = await newUser(["demo:write"]);
    const w = await writer.api.create("Demo");
    expect(w.Gcid).toBe(writer.user.gcid);
    const readOnly = await newUser(["watchlist:read"]);
    const denied = await readOnly.api.call("POST", `${BASE}?name=Nope`);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().errorCode).toBe("InsufficientPermissions");
  });
});
