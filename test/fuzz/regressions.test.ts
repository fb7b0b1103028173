/**
 * One regression test per defect the OpenAPI fuzzer found (issue 12, items 1 and 2), on SQLite
 * and PostgreSQL. The socket-only ones (bad escapes, overlong params and headers) are in
 * socket.fuzz.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KNOWN_SCOPES } from "../../src/core/scopes.js";
import { type Engine, engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { problemsOf } from "./oracle.js";

const AAPL = 1001;

describe.each(engines())("regressions found by the fuzzer (%s)", (engine: Engine) => {
  let h: Harness;
  let u: TestUser;
  let postId: string;
  let commentId: string;
  let pollPostId: string;
  let pollId: number;
  let optionId: number;
  let watchlistId: string;
  let positionId: number;

  const call = async (method: string, url: string, payload?: unknown, contentType?: string) => {
    const res = await h.app.inject({
      method: method as "GET",
      url,
      headers: { ...u.headers, "x-request-id": rid(), ...(contentType ? { "content-type": contentType } : {}) },
      ...(payload !== undefined ? { payload: payload as string } : {}),
    });
    expect(problemsOf(res), `${method} ${url}: ${res.statusCode} ${res.body}`).toEqual([]);
    return res;
  };
  const ok = async (method: string, url: string, payload?: unknown) => {
    const res = await call(method, url, payload);
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.body === "" ? undefined : res.json();
  };
  /** The answer is 422 and its details name `field`. */
  const refused = async (method: string, url: string, field: string, payload?: unknown, contentType?: string) => {
    const res = await call(method, url, payload, contentType);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(422);
    expect(res.json().errorCode).toBe("ValidationFailed");
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  };

  beforeAll(async () => {
    h = await startHarness(engine);
    u = await h.user([...KNOWN_SCOPES]);
    postId = (await ok("POST", "/api/v1/posts", { message: "hello" })).id;
    commentId = (await ok("POST", `/api/v1/posts/${postId}/comments`, { message: "c" })).entity.id;
    const poll = await ok("POST", "/api/v1/posts/polls", {
      message: "poll",
      poll: {
        title: "t",
        options: [
          { text: "a", index: 1 },
          { text: "b", index: 2 },
        ],
      },
    });
    pollPostId = poll.id;
    pollId = poll.metadata.poll.id;
    optionId = poll.metadata.poll.options[0].id;
    watchlistId = (await ok("POST", "/api/v1/watchlists?name=w")).watchlists[0].watchlistId;
    const order = await ok("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", {
      InstrumentID: AAPL,
      IsBuy: true,
      Leverage: 1,
      Amount: 100,
    });
    positionId = order.orderForOpen.positionID;
  }, 60_000);
  afterAll(async () => h?.close());

  describe("non-finite and huge numbers are refused (422), never reach the database", () => {
    it.each([
      ["/api/v1/market-data/search?pageSize=Infinity", "querystring/pageSize"],
      ["/api/v1/market-data/search?pageNumber=1e309", "querystring/pageNumber"],
      ["/api/v1/market-data/search?pageNumber=99999999999999999999999", "querystring/pageNumber"],
      ["/api/v1/feeds/news?offset=99999999999999999999999", "querystring/offset"],
      ["/api/v1/feeds/following?offset=1e20", "querystring/offset"],
      ["/api/v1/feeds/saved?offset=1e20", "querystring/offset"],
      ["/api/v1/trading/info/trade/demo/history?page=Infinity", "querystring/page"],
      ["/api/v1/trading/info/trade/demo/history?pageSize=Infinity", "querystring/pageSize"],
      ["/api/v1/trading/info/demo/orders/Infinity", "params/orderId"],
      ["/api/v1/trading/info/demo/orders/2147483648", "params/orderId"],
      ["/api/v1/watchlists?itemsPerPageForSingle=Infinity", "querystring/itemsPerPageForSingle"],
      ["/api/v1/market-data/instruments/2147483648/history/candles/asc/OneHour/10", "params/instrumentId"],
    ])("GET %s", async (url, field) => refused("GET", url, field));

    it("paging of one watchlist, of a post, of reactions", async () => {
      await refused("GET", `/api/v1/watchlists/${watchlistId}?pageNumber=Infinity`, "querystring/pageNumber");
      await refused("GET", `/api/v1/watchlists/${watchlistId}?itemsPerPage=Infinity`, "querystring/itemsPerPage");
      await refused("GET", `/api/v1/posts/${postId}?take=Infinity`, "querystring/take");
      await refused("GET", `/api/v1/reactions/${postId}/emotions?offset=1e309`, "querystring/offset");
    });

    it("a position id of 2147483648, poll and option ids beyond int32", async () => {
      await refused(
        "POST",
        "/api/v1/trading/execution/demo/market-close-orders/positions/2147483648",
        "params/positionId",
        { InstrumentID: AAPL },
      );
      await refused("POST", `/api/v1/posts/${pollPostId}/polls/2147483648/options/${optionId}/votes`, "params/pollId");
      await refused("DELETE", `/api/v1/posts/${pollPostId}/polls/${pollId}/options/Infinity/votes`, "params/optionId");
      // The real ids still work.
      await ok("POST", `/api/v1/posts/${pollPostId}/polls/${pollId}/options/${optionId}/votes`);
      await ok("POST", `/api/v1/trading/execution/demo/market-close-orders/positions/${positionId}`, {
        InstrumentID: AAPL,
      });
    });

    it("body numbers: AmountInUnits 1e20, Amount 1e309, a poll option index 1e20, owner 1e309, itemId Infinity", async () => {
      const order = { InstrumentID: AAPL, IsBuy: true, Leverage: 1 };
      const base = "/api/v1/trading/execution/demo/market-open-orders";
      await refused("POST", `${base}/by-units`, "body/AmountInUnits", { ...order, AmountInUnits: 1e20 });
      const json = "application/json";
      await refused(
        "POST",
        `${base}/by-amount`,
        "body/Amount",
        '{"InstrumentID":1001,"IsBuy":true,"Leverage":1,"Amount":1e309}',
        json,
      );
      await refused("POST", `${base}/by-amount`, "body/InstrumentID", {
        ...order,
        InstrumentID: 2147483648,
        Amount: 10,
      });
      await refused("POST", "/api/v1/posts/polls", "body/poll/options/0/index", {
        message: "m",
        poll: {
          title: "t",
          options: [
            { text: "a", index: 1e20 },
            { text: "b", index: 2 },
          ],
        },
      });
      await refused("POST", "/api/v1/posts", "body/owner", '{"message":"m","owner":1e309}', json);
      await refused("POST", `/api/v1/watchlists/${watchlistId}/items`, "body/0/itemId", [
        { itemId: "Infinity", itemType: "Instrument" },
      ]);
    });

    it("instrumentIds beyond int32 name no instrument (listed as not found)", async () => {
      const res = await call(
        "GET",
        `/api/v1/market-data/instruments/rates?instrumentIds=${AAPL},2147483648,9999999999`,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().notFoundInstrumentIds).toEqual([2147483648, 9999999999]);
      expect(res.json().rates.map((r: { instrumentID: number }) => r.instrumentID)).toEqual([AAPL]);
    });
  });

  describe("text holding NUL is refused (422 naming the field), on both engines alike", () => {
    it("post, comment, poll, share and edit text; mention names", async () => {
      await refused("POST", "/api/v1/posts", "body/message", { message: "a\u0000b" });
      await refused("POST", "/api/v1/feeds/post", "body/mentions/mentions/0/userName", {
        message: "hi",
        mentions: { mentions: [{ userName: "\u0000" }] },
      });
      await refused("POST", "/api/v1/posts", "body/mentions/mentions/0/id", {
        message: "hi",
        mentions: { mentions: [{ id: "1\u0000" }] },
      });
      await refused("POST", "/api/v1/posts", "body/tags/tags/0/id", {
        message: "hi",
        tags: { tags: [{ id: "\u0000" }] },
      });
      await refused("POST", `/api/v1/posts/${postId}/comments`, "body/message", { message: "\u0000" });
      await refused("PUT", `/api/v1/posts/${postId}/comments/${commentId}`, "body/message", { message: "x\u0000" });
      await refused("PUT", `/api/v1/posts/${postId}`, "body/message", { message: "\u0000" });
      await refused("POST", "/api/v1/posts/polls", "body/poll/title", {
        message: "m",
        poll: {
          title: "\u0000",
          options: [
            { text: "a", index: 1 },
            { text: "b", index: 2 },
          ],
        },
      });
      await refused("POST", "/api/v1/posts/polls", "body/poll/options/1/text", {
        message: "m",
        poll: {
          title: "t",
          options: [
            { text: "a", index: 1 },
            { text: "b\u0000", index: 2 },
          ],
        },
      });
      await refused("POST", "/api/v1/posts/shares", "body/message", {
        message: "\u0000",
        sharedOriginDiscussion: postId,
      });
      // Nothing was stored: the post is unchanged.
      expect((await ok("GET", `/api/v1/posts/${postId}`)).post.message.text).toBe("hello");
    });

    it("%00 in path ids and query text", async () => {
      await refused("GET", "/api/v1/watchlists/%00", "params/watchlistId");
      await refused("PUT", "/api/v1/watchlists/rank/%00?newRank=1", "params/watchlistId");
      await refused("GET", `/api/v1/watchlists/public/${u.user.gcid}/%00`, "params/watchlistId");
      await refused("GET", "/api/v1/feeds/users/%00", "params/userId");
      await refused("POST", "/api/v1/users/%00/follows", "params/userId");
      await refused("GET", "/api/v1/market-data/search?searchText=%00", "querystring/searchText");
      await refused("POST", "/api/v1/watchlists?name=a%00", "querystring/name");
      await refused("PUT", `/api/v1/watchlists/${watchlistId}?newName=%00`, "querystring/newName");
    });
  });

  it("GET reactions/{id}/emotions requires a credential holding feed:read", async () => {
    const anonymous = await h.app.inject({ method: "GET", url: `/api/v1/reactions/${postId}/emotions` });
    expect(anonymous.statusCode, anonymous.body).toBe(401);
    expect(problemsOf(anonymous)).toEqual([]);
    const noScope = await h.user(["user-info:read"]);
    const denied = await h.app.inject({
      method: "GET",
      url: `/api/v1/reactions/${postId}/emotions`,
      headers: noScope.headers,
    });
    expect(denied.statusCode, denied.body).toBe(403);
    expect((await ok("GET", `/api/v1/reactions/${postId}/emotions`)).paging).toBeDefined();
  });

  it("one user's concurrent rank changes and default selections all succeed (no deadlock)", async () => {
    const me = await h.user(["watchlist:read", "watchlist:write"]);
    const as = (method: "PUT" | "POST" | "GET", url: string) =>
      h.app.inject({ method, url, headers: { ...me.headers, "x-request-id": rid() } });
    for (let i = 0; i < 6; i += 1) expect((await as("POST", `/api/v1/watchlists?name=w${i}`)).statusCode).toBe(201);
    const ids: string[] = (await as("GET", "/api/v1/watchlists"))
      .json()
      .watchlists.map((w: { watchlistId: string }) => w.watchlistId);
    expect(ids.length).toBeGreaterThanOrEqual(8);
    // Before the fix, 15 to 51 of 40 to 120 such requests failed on PostgreSQL with a deadlock (500).
    const requests = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 2
        ? as("PUT", `/api/v1/watchlists/setUserSelectedUserDefault/${ids[i % ids.length]}`)
        : as("PUT", `/api/v1/watchlists/rank/${ids[(i * 7) % ids.length]}?newRank=${i % 9}`),
    );
    const statuses = (await Promise.all(requests)).map((r) => r.statusCode);
    expect(statuses.filter((s) => s >= 300)).toEqual([]);
    const after = (await as("GET", "/api/v1/watchlists")).json().watchlists;
    expect(after.filter((w: { isUserSelectedDefault: boolean }) => w.isUserSelectedDefault)).toHaveLength(1);
  }, 60_000);
});
