import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  ApiError,
  createClient,
  ok,
  RealtimeClient,
  type RealtimeEvents,
  type SocialTradingClient,
} from "../../packages/client/src/index.js";
import { TcpProxy } from "../faults/tcp-proxy.js";
import { authorizeViaForms, client as oauthClient, PASSWORD, passwordUser, pkce, REDIRECT } from "../oauth/support.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";

const SCOPES = [
  "user-info:read",
  "notifications:read",
  "notifications:write",
  "feed:read",
  "feed:write",
  "watchlist:read",
  "watchlist:write",
  "demo:read",
  "demo:write",
];
const BTC = 100000;

describe.each(engines())("the typed client against the real server on %s", (engine) => {
  let h: Harness;
  let baseUrl: string;
  let user: TestUser;
  let sta: SocialTradingClient;
  const sentIds: string[] = [];

  beforeAll(async () => {
    h = await startHarness(engine);
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    user = await h.user(SCOPES);
    sta = createClient({
      baseUrl,
      credentials: { apiKey: user.headers["x-api-key"]!, userKey: user.headers["x-user-key"]! },
      requestId: () => {
        const id = randomUUID();
        sentIds.push(id);
        return id;
      },
    });
  });
  afterAll(async () => h.close());

  it("identity: reads the caller's profile with the key pair, an x-request-id on the call", async () => {
    const { data, response } = await sta.api.GET("/api/v1/me");
    expect(data?.username).toBe(user.user.username);
    expect(response.headers.get("x-request-id")).toBe(sentIds.at(-1));
  });

  it("market data: rates and search", async () => {
    const rates = await ok(
      sta.api.GET("/api/v1/market-data/instruments/rates", { params: { query: { instrumentIds: String(BTC) } } }),
    );
    expect(rates.rates[0]?.instrumentID).toBe(BTC);
    const found = await ok(sta.api.GET("/api/v1/market-data/search", { params: { query: { searchText: "BTC" } } }));
    expect(found.items.length).toBeGreaterThan(0);
  });

  it("trading: opens a position, reads its order and the portfolio, closes it", async () => {
    const opened = await ok(
      sta.api.POST("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
        body: { InstrumentID: BTC, IsBuy: true, Leverage: 1, Amount: 250 },
      }),
    );
    const { orderID, positionID } = opened.orderForOpen;
    const order = await ok(
      sta.api.GET("/api/v1/trading/info/demo/orders/{orderId}", { params: { path: { orderId: orderID } } }),
    );
    expect(order.positions.map((p) => p.positionID)).toContain(positionID);
    const portfolio = await ok(sta.api.GET("/api/v1/trading/info/demo/portfolio"));
    expect(portfolio.clientPortfolio.positions.map((p) => p.positionID)).toContain(positionID);
    await sta.api.POST("/api/v1/trading/execution/demo/market-close-orders/positions/{positionId}", {
      params: { path: { positionId: positionID } },
      body: { InstrumentID: BTC },
    });
    const after = await ok(sta.api.GET("/api/v1/trading/info/demo/portfolio"));
    expect(after.clientPortfolio.positions.map((p) => p.positionID)).not.toContain(positionID);
  });

  it("an order sent with its own x-request-id twice is made once", async () => {
    const id = randomUUID();
    const open = () =>
      ok(
        sta.api.POST("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
          params: { header: { "x-request-id": id } },
          body: { InstrumentID: BTC, IsBuy: false, Leverage: 1, Amount: 100 },
        }),
      );
    const first = await open();
    const again = await open();
    expect(again.orderForOpen.orderID).toBe(first.orderForOpen.orderID);
  });

  it("watchlists: creates one, adds an item, reads it back", async () => {
    const created = await ok(sta.api.POST("/api/v1/watchlists", { params: { query: { name: `w${Date.now()}` } } }));
    const watchlistId = created.watchlists[0]!.watchlistId;
    await sta.api.POST("/api/v1/watchlists/{watchlistId}/items", {
      params: { path: { watchlistId } },
      body: [{ itemId: BTC, itemType: "Instrument" }],
    });
    const read = await ok(sta.api.GET("/api/v1/watchlists/{watchlistId}", { params: { path: { watchlistId } } }));
    expect(read.watchlists[0]!.items.map((i) => i.itemId)).toContain(BTC);
  });

  it("social: posts, comments, likes, and walks a feed page by page along paging.next", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const post = await ok(sta.api.POST("/api/v1/posts", { body: { message: `post ${i} ${randomUUID()}` } }));
      ids.push(post.id);
    }
    await sta.api.POST("/api/v1/posts/{postId}/comments", {
      params: { path: { postId: ids[0]! } },
      body: { message: "first!" },
    });
    await sta.api.POST("/api/v1/posts/{postId}/likes", { params: { path: { postId: ids[0]! } } });
    const post = await ok(sta.api.GET("/api/v1/posts/{postId}", { params: { path: { postId: ids[0]! } } }));
    expect(post.emotionsData.like.paging.totalCount).toBe(1);
    expect(post.commentsData.comments).toHaveLength(1);

    const seen: string[] = [];
    let pages = 0;
    for await (const page of sta.pages("/api/v1/feeds/users/{userId}", {
      params: { path: { userId: user.user.id }, query: { take: 1 } },
    })) {
      pages += 1;
      seen.push(...page.discussions.map((d) => d.post.id));
    }
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it("notifications: lists them and marks them all read", async () => {
    const list = await ok(sta.api.GET("/api/v1/notifications/messages"));
    expect(Array.isArray(list.messages)).toBe(true);
    const { response } = await sta.api.PATCH("/api/v1/notifications/messages");
    expect(response.status).toBe(204);
  });

  it("a refused call rejects with an ApiError carrying errorCode, details and requestId", async () => {
    const missing = await sta.api
      .GET("/api/v1/posts/{postId}", { params: { path: { postId: randomUUID() } } })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, errorCode: "NotFound", requestId: sentIds.at(-1) });
    const invalid = (await sta.api
      .POST("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
        body: { InstrumentID: BTC, IsBuy: true, Leverage: 1, Amount: -5 },
      })
      .catch((e: unknown) => e)) as ApiError;
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid.status).toBe(422);
    expect(invalid.errorCode).toBe("ValidationFailed");
    expect(invalid.details.length).toBeGreaterThan(0);
    expect(invalid.details[0]).toMatchObject({ field: expect.any(String), message: expect.any(String) });
  });

  /** A refresh token through the authorization code flow, exchanged at the listening server. */
  async function refreshTokenFor(scope: string) {
    const app = await oauthClient(h, { isPublic: true });
    const owner = await passwordUser(h);
    const { verifier, challenge } = pkce();
    const { url } = await authorizeViaForms(
      h,
      {
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: REDIRECT,
        scope,
        state: "s",
        code_challenge: challenge,
        code_challenge_method: "S256",
      },
      { username: owner.username, password: PASSWORD },
    );
    const exchanged = await fetch(`${baseUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: url.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        client_id: app.clientId,
        code_verifier: verifier,
      }),
    });
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as { refresh_token: string };
    return { app, owner, tokens };
  }

  it("a bearer token that expired is refreshed through the OAuth token endpoint, the new refresh token handed over", async () => {
    const { app, owner, tokens } = await refreshTokenFor("service-public:user-info:read");
    const expired = await h.bearer(["user-info:read"], { user: owner, expired: true });
    const rotated: string[] = [];
    const bearerClient = createClient({
      baseUrl,
      credentials: {
        accessToken: expired.token,
        refreshToken: tokens.refresh_token,
        clientId: app.clientId,
        onRefresh: (t) => {
          rotated.push(t.refresh_token!);
        },
      },
    });
    const me = await ok(bearerClient.api.GET("/api/v1/me"));
    expect(me.username).toBe(owner.username);
    expect(rotated).toHaveLength(1);
    expect(rotated[0]).not.toBe(tokens.refresh_token);
    // The refreshed token serves the next calls without another refresh.
    await ok(bearerClient.api.GET("/api/v1/me"));
    expect(rotated).toHaveLength(1);
  });

  describe("the real-time client", () => {
    const realtime = (url: string, extra: Partial<ConstructorParameters<typeof RealtimeClient>[0]> = {}) =>
      new RealtimeClient({
        url,
        credentials: { apiKey: user.headers["x-api-key"]!, userKey: user.headers["x-user-key"]! },
        WebSocket,
        ...extra,
      });

    it("subscribes with snapshot, gets typed rates and its order's private events", async () => {
      const live = realtime(`${baseUrl.replace("http", "ws")}/ws`);
      try {
        await live.connect();
        const snapshot = live.waitFor("rate", (r) => r.instrumentId === BTC && r.snapshot);
        await live.subscribe([`instrument:${BTC}`, "private"], { snapshot: true });
        const first = await snapshot;
        expect(Number(first.rate.Bid)).toBeGreaterThan(0);
        expect(first.rate.InstrumentID).toBe(String(BTC));
        const ticked = live.waitFor("rate", (r) => r.instrumentId === BTC && !r.snapshot);
        await h.deps.market.tick();
        const tick = await ticked;
        expect(Number(tick.fields.PriceRateID)).toBeGreaterThan(Number(first.fields.PriceRateID));
        // A delta carries what moved; the merged rate keeps the snapshot's other fields.
        expect(tick.fields.InstrumentID).toBeUndefined();
        expect(tick.rate).toMatchObject({ InstrumentID: String(BTC), PriceRateID: tick.fields.PriceRateID });

        const opened = await ok(
          sta.api.POST("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
            body: { InstrumentID: BTC, IsBuy: true, Leverage: 1, Amount: 100 },
          }),
        );
        const open = await live.waitFor("orderForOpen", (e) => e.OrderID === opened.orderForOpen.orderID);
        expect(open.PositionID).toBe(opened.orderForOpen.positionID);
        await sta.api.POST("/api/v1/trading/execution/demo/market-close-orders/positions/{positionId}", {
          params: { path: { positionId: open.PositionID } },
          body: { InstrumentID: BTC },
        });
        const closed = await live.waitFor("orderForClose", (e) => e.PositionID === open.PositionID);
        expect(closed).toMatchObject({ CloseReason: 0, CloseReasonName: "Manual", IsFullyClosed: true });
      } finally {
        live.close();
      }
    });

    it("refuses a topic with a typed error", async () => {
      const live = realtime(`${baseUrl.replace("http", "ws")}/ws`);
      try {
        await live.connect();
        await expect(live.subscribe(["instrument:999999999"])).rejects.toMatchObject({
          name: "RealtimeError",
          errorCode: "SubscribeFailed",
        });
      } finally {
        live.close();
      }
    });

    it("authenticates with the REST client's bearer auth, refreshing its expired token", async () => {
      const { app, owner, tokens } = await refreshTokenFor("service-public:demo:read");
      const expired = await h.bearer(["demo:read"], { user: owner, expired: true });
      let refreshes = 0;
      const bearer = createClient({
        baseUrl,
        credentials: {
          accessToken: expired.token,
          refreshToken: tokens.refresh_token,
          clientId: app.clientId,
          onRefresh: () => {
            refreshes += 1;
          },
        },
      });
      const live = new RealtimeClient({
        url: `${baseUrl.replace("http", "ws")}/ws`,
        credentials: bearer.auth!,
        WebSocket,
      });
      try {
        await live.connect();
        expect(refreshes).toBe(1);
        const rate = live.waitFor("rate", (r) => r.instrumentId === BTC);
        await live.subscribe([`instrument:${BTC}`], { snapshot: true });
        expect((await rate).snapshot).toBe(true);
        // The REST client goes on with the token the channel refreshed.
        await ok(bearer.api.GET("/api/v1/trading/info/demo/portfolio"));
        expect(refreshes).toBe(1);
      } finally {
        live.close();
      }
    });

    it("reconnects with backoff after the link drops, authenticates and subscribes again", async () => {
      const port = (h.app.server.address() as AddressInfo).port;
      const proxy = new TcpProxy("127.0.0.1", port);
      await proxy.start();
      const live = realtime(`ws://127.0.0.1:${proxy.port}/ws`, { reconnect: { initialDelayMs: 50, maxDelayMs: 400 } });
      const events: string[] = [];
      const disconnects: RealtimeEvents["disconnected"][] = [];
      live.on("connected", (e) => events.push(e.reconnect ? "reconnected" : "connected"));
      live.on("disconnected", (e) => {
        events.push("disconnected");
        disconnects.push(e);
      });
      try {
        await live.connect();
        const snapshot = live.waitFor("rate", (r) => r.snapshot);
        await live.subscribe([`instrument:${BTC}`], { snapshot: true });
        await snapshot;
        let cut = false;
        const resubscribed = new Promise<RealtimeEvents["rate"]>((resolve) => {
          live.on("rate", (r) => {
            if (cut && r.snapshot) resolve(r);
          });
        });
        proxy.cut();
        cut = true;
        await new Promise((r) => setTimeout(r, 600));
        proxy.restore();
        const again = await resubscribed;
        expect(again.instrumentId).toBe(BTC);
        expect(events[0]).toBe("connected");
        expect(events).toContain("reconnected");
        // At least one failed attempt while cut: the waits grew, and stayed within the bound.
        expect(disconnects.length).toBeGreaterThan(1);
        const waits = disconnects.map((d) => d.retryInMs!);
        expect(waits[1]!).toBeGreaterThan(waits[0]!);
        expect(Math.max(...waits)).toBeLessThanOrEqual(400);
      } finally {
        live.close();
        await proxy.close();
      }
    });
  });
});
