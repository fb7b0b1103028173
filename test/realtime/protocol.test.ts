import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { revokeKeyPair } from "../../src/modules/identity/key-pairs.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { Client, listening, sleep, until } from "./client.js";

const BTC = 100000;
const ORIGIN = "https://app.example.test";

describe.each(engines())("the real-time channel's protocol on %s", (engine) => {
  let h: Harness;
  let url: string;
  const open: Client[] = [];
  const connect = async (options = {}) => {
    const c = await Client.open(url, options);
    open.push(c);
    return c;
  };
  const trader = () => h.user(["trade.demo:read", "notifications:read"]);
  const authed = async (scopes = ["trade.demo:read", "notifications:read"]) => {
    const u = await h.user(scopes);
    const c = await connect();
    expect(await c.authenticate(u.headers)).toMatchObject({ success: true, operation: "Authenticate" });
    return { c, u };
  };

  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        CORS_ORIGINS: ORIGIN,
        PUBLIC_URL: "https://api.example.test",
        REALTIME_RATE_LIMIT: "30/60s",
        REALTIME_MAX_CONNECTIONS_PER_USER: "2",
        // Long enough that a client busy with 5,000 rates still answers a ping within one interval.
        REALTIME_KEEPALIVE_MS: "1000",
      },
    });
    url = await listening(h.app);
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {});
    await h.close();
  });

  it("authenticates with the key pair: the reply echoes the id and comes first", async () => {
    const u = await trader();
    const c = await connect();
    const id = randomUUID();
    c.send({
      id,
      operation: "Authenticate",
      data: { userKey: u.headers["x-user-key"], apiKey: u.headers["x-api-key"] },
    });
    const reply = await c.replyTo(id);
    expect(reply).toEqual({ id, success: true, operation: "Authenticate" });
    expect(c.frames[0]).toBe(JSON.stringify(reply));
    // A second Authenticate on the same socket.
    expect(await c.authenticate(u.headers)).toEqual(
      expect.objectContaining({ success: false, operation: "Authenticate", errorCode: "SessionAlreadyAuthenticated" }),
    );
  });

  it("takes upstream's own sample, which leaves the operation out, as Authenticate", async () => {
    const u = await trader();
    const c = await connect();
    const id = randomUUID();
    c.send({ id, data: { userKey: u.headers["x-user-key"], apiKey: u.headers["x-api-key"] } });
    expect(await c.replyTo(id)).toEqual({ id, success: true, operation: "Authenticate" });
  });

  it("answers each Authenticate mistake with upstream's code and description", async () => {
    const u = await trader();
    const c = await connect();
    const code = async (data: unknown) => {
      const r = await c.request("Authenticate", data);
      expect(r.success).toBe(false);
      expect(r.operation).toBe("Authenticate");
      expect(typeof r.errorMessage).toBe("string");
      return r.errorCode;
    };
    expect(await code(undefined)).toBe("DataRequired");
    expect(await code({ userKey: u.headers["x-user-key"] })).toBe("ApiKeyRequired");
    expect(await code({ apiKey: u.headers["x-api-key"] })).toBe("UserKeyRequired");
    expect(await code({ apiKey: u.headers["x-api-key"], userKey: "sta_uk_nope" })).toBe("InvalidKey");
    expect(await code({ apiKey: "sta_ak_nope", userKey: u.headers["x-user-key"] })).toBe("InvalidKey");
    expect(await code({ accessToken: "not-a-jwt" })).toBe("Unauthorized");
    // None of it authenticated the socket: Subscribe still needs Authenticate.
    const sub = await c.request("Subscribe", { topics: [`instrument:${BTC}`] });
    expect(sub).toMatchObject({ success: false, operation: "Subscribe", errorCode: "Unauthorized" });
    // A revoked pair is refused too (the HTTP API's own check, cache included).
    const other = await trader();
    await revokeKeyPair(withActor(h.deps, systemActor("test")), other.keyId);
    expect((await c.authenticate(other.headers)).errorCode).toBe("InvalidKey");
    expect((await c.authenticate(u.headers)).success).toBe(true);
  });

  it("refuses a credential that can read no topic (Forbidden), and a topic its scopes do not cover", async () => {
    const bare = await h.user(["user-info:read"]);
    const c = await connect();
    expect(await c.authenticate(bare.headers)).toMatchObject({ success: false, errorCode: "Forbidden" });
    const { c: watcher } = await authed(["watchlist:read"]);
    expect(await watcher.request("Subscribe", { topics: [`instrument:${BTC}`] })).toMatchObject({ success: true });
    const denied = await watcher.request("Subscribe", { topics: ["private"] });
    expect(denied).toMatchObject({ success: false, operation: "Subscribe", errorCode: "Forbidden" });
    expect(denied.errorMessage).toContain("trade.demo:read");
  });

  it("accepts an OAuth access token in data.accessToken (our extension)", async () => {
    const { token } = await h.bearer(["trade.demo:read"]);
    const c = await connect();
    expect(await c.request("Authenticate", { accessToken: token })).toMatchObject({ success: true });
    const expired = await h.bearer(["trade.demo:read"], { expired: true });
    const d = await connect();
    const refused = await d.request("Authenticate", { accessToken: expired.token });
    expect(refused).toMatchObject({ success: false, errorCode: "Unauthorized" });
    expect(refused.errorMessage).toContain("expired");
  });

  it("sends a Snapshot with the full state, then a Trading.Instrument.Rate delta on every tick, all strings", async () => {
    const { c, u } = await authed();
    expect(await c.request("Subscribe", { topics: [`instrument:${BTC}`], snapshot: true })).toMatchObject({
      success: true,
      operation: "Subscribe",
    });
    const snapshot = await c.waitFor("the snapshot", (p) => p.type === "Snapshot");
    expect(snapshot.topic).toBe(`instrument:${BTC}`);
    expect(snapshot.id).toMatch(/^[0-9a-f-]{36}$/);
    const s = snapshot.content;
    for (const field of [
      "Ask",
      "Bid",
      "LastExecution",
      "ConversionRateAsk",
      "ConversionRateBid",
      "Date",
      "PriceRateID",
    ]) {
      expect(typeof s[field]).toBe("string");
    }
    expect(s).toMatchObject({ InstrumentID: String(BTC), IsMarketOpen: "true", ConversionRateAsk: "1" });
    expect(Number(s.OfficialClosingPrice)).toBeGreaterThan(0);
    expect(Object.values(s).every((v) => typeof v === "string")).toBe(true);

    for (let i = 0; i < 3; i++) await h.deps.market.tick();
    await until("three deltas", () => c.of(`instrument:${BTC}`).length >= 4);
    const deltas = c.of(`instrument:${BTC}`).slice(1);
    expect(deltas.map((d) => d.type)).toEqual(Array(3).fill("Trading.Instrument.Rate"));
    expect(deltas.every((d) => Object.values(d.content).every((v) => typeof v === "string"))).toBe(true);
    const last = deltas[2]!.content;
    expect(Number(last.PriceRateID)).toBe(h.deps.market.steps);
    // The same numbers REST serves.
    const rest = await h.app.inject({
      method: "GET",
      url: `/api/v1/market-data/instruments/rates?instrumentIds=${BTC}`,
      headers: { ...u.headers, "x-request-id": randomUUID() },
    });
    const rate = rest.json().rates[0];
    const state = Object.assign({}, s, ...deltas.map((d) => d.content));
    expect([Number(state.Bid), Number(state.Ask), Number(state.LastExecution), Number(state.PriceRateID)]).toEqual([
      rate.bid,
      rate.ask,
      rate.lastExecution,
      rate.priceRateID,
    ]);
  });

  it("sends no snapshot with snapshot: false; Unsubscribe stops the rates", async () => {
    const { c } = await authed();
    expect((await c.request("Subscribe", { topics: ["instrument:1"], snapshot: false })).success).toBe(true);
    await h.deps.market.tick();
    await c.waitFor("a delta", (p) => p.topic === "instrument:1");
    expect(c.of("instrument:1").map((p) => p.type)).toEqual(["Trading.Instrument.Rate"]);
    expect(await c.request("Unsubscribe", { topics: ["instrument:1"] })).toMatchObject({
      success: true,
      operation: "Unsubscribe",
    });
    await h.deps.market.tick();
    await h.deps.market.tick();
    await sleep(50);
    expect(c.of("instrument:1")).toHaveLength(1);
  });

  it("fails a Subscribe whole for an unknown topic or instrument, a missing list or missing data", async () => {
    const { c } = await authed();
    const failed = async (data: unknown) => {
      const r = await c.request("Subscribe", data);
      expect(r).toMatchObject({ success: false, operation: "Subscribe" });
      return r;
    };
    expect((await failed(undefined)).errorCode).toBe("DataRequired");
    expect((await failed({ topics: "instrument:1" })).errorCode).toBe("SubscribeFailed");
    expect((await failed({ topics: [] })).errorCode).toBe("SubscribeFailed");
    const unknown = await failed({ topics: ["instrument:2", "quotes"] });
    expect(unknown).toMatchObject({ errorCode: "SubscribeFailed" });
    expect(unknown.errorMessage).toContain("quotes");
    const missing = await failed({ topics: ["instrument:2", "instrument:999999"] });
    expect(missing.errorMessage).toContain("999999");
    // Nothing of the failed frames was applied: instrument:2 sends nothing.
    await h.deps.market.tick();
    await sleep(50);
    expect(c.of("instrument:2")).toHaveLength(0);
  });

  it("answers frames it cannot read: not JSON, an unknown operation, a binary frame", async () => {
    const c = await connect();
    c.send("not json");
    c.send({ id: "x1", operation: "Ping" });
    c.ws.send(Buffer.from([1, 2, 3]));
    // An id is echoed as sent, a number included; a frame with no operation names none.
    c.send({ id: 7, operation: "Unsubscribe", data: { topics: ["private"] } });
    c.send({ id: "x2", data: {} });
    await until("five replies", () => c.replies.length >= 5);
    expect(c.replies[0]).toMatchObject({ success: false, errorCode: "InvalidMessage" });
    expect(c.replies[1]).toMatchObject({
      id: "x1",
      success: false,
      operation: "Ping",
      errorCode: "OperationNotSupported",
    });
    expect(c.replies[2]).toMatchObject({ success: false, errorCode: "BinaryMessagesNotSupported" });
    expect(c.replies[3]).toMatchObject({ id: 7, success: false, operation: "Unsubscribe", errorCode: "Unauthorized" });
    expect(c.replies[4]).toMatchObject({ id: "x2", success: false, errorCode: "InvalidMessage" });
    expect(c.closed).toBeUndefined();
  });

  it("limits operations per socket (TooManyRequests) without closing it", async () => {
    const c = await connect();
    const ids = Array.from({ length: 32 }, () => randomUUID());
    // The first is an Authenticate that takes a lookup; the refusals behind it wait their turn.
    c.send({ id: ids[0], operation: "Authenticate", data: { apiKey: "sta_ak_x", userKey: "sta_uk_unknown" } });
    for (const id of ids.slice(1)) c.send({ id, operation: "Unsubscribe", data: { topics: ["private"] } });
    const replies = await Promise.all(ids.map((id) => c.replyTo(id)));
    expect(replies[0]!.errorCode).toBe("InvalidKey");
    expect(replies.slice(1, 30).every((r) => r.errorCode === "Unauthorized")).toBe(true);
    expect(replies.slice(30).map((r) => r.errorCode)).toEqual(["TooManyRequests", "TooManyRequests"]);
    // In the order asked, refused ones included.
    expect(c.replies.map((r) => r.id)).toEqual(ids);
    expect(c.closed).toBeUndefined();
  });

  it("caps a user's sockets (REALTIME_MAX_CONNECTIONS_PER_USER); closing one frees its place", async () => {
    const u = await trader();
    const [a, b, third] = [await connect(), await connect(), await connect()];
    expect((await a.authenticate(u.headers)).success).toBe(true);
    expect((await b.authenticate(u.headers)).success).toBe(true);
    const refused = await third.authenticate(u.headers);
    expect(refused).toMatchObject({ success: false, errorCode: "TooManyRequests" });
    await until("the third socket is closed", () => third.closed !== undefined);
    expect(third.closed!.code).toBe(1008);
    expect(h.deps.realtime.connectionsOf(u.user.id)).toBe(2);
    await a.close();
    await until("the place is free", () => h.deps.realtime.connectionsOf(u.user.id) === 1);
    const d = await connect();
    expect((await d.authenticate(u.headers)).success).toBe(true);
  });

  it("drops a client frame over 25 KiB with close code 1009; 25 KiB passes", async () => {
    const c = await connect();
    const id = randomUUID();
    const frame = JSON.stringify({ id, operation: "Unsubscribe", data: { topics: ["private"], pad: "" } });
    c.send(frame.replace('"pad":""', `"pad":"${"x".repeat(25 * 1024 - frame.length)}"`));
    expect((await c.replyTo(id)).errorCode).toBe("Unauthorized");
    c.send({ id: randomUUID(), operation: "Unsubscribe", data: { pad: "x".repeat(25 * 1024) } });
    await until("the socket is closed", () => c.closed !== undefined);
    expect(c.closed!.code).toBe(1009);
  });

  it("caps topics at 4,999 per socket: the Subscribe that would cross fails whole; Unsubscribe frees room", async () => {
    const ids = Array.from({ length: 5000 }, (_, i) => 300_000 + i);
    const now = new Date().toISOString();
    for (let i = 0; i < ids.length; i += 250) {
      await h.deps.db.kysely
        .insertInto("instruments")
        .values(
          ids.slice(i, i + 250).map((id) => ({
            instrumentId: id,
            symbol: `T${id}`,
            symbolLower: `t${id}`,
            displayName: `Test ${id}`,
            displayNameLower: `test ${id}`,
            assetType: "Stocks",
            assetTypeId: 5,
            assetTypeSubCategoryId: 1,
            exchangeId: 4,
            hasExpirationDate: 0,
            avatarSmall: "",
            avatarMedium: "",
            avatarLarge: "",
            allowedLeverages: "[1]",
            minAmountCents: 1000,
            priceSeed: 10,
            precision: 2,
            updated: now,
          })),
        )
        .execute();
    }
    const { c } = await authed();
    const topics = ids.map((id) => `instrument:${id}`);
    for (let i = 0; i < 4500; i += 500) {
      expect((await c.request("Subscribe", { topics: topics.slice(i, i + 500) })).success).toBe(true);
    }
    expect((await c.request("Subscribe", { topics: topics.slice(4500, 4999) })).success).toBe(true);
    const over = await c.request("Subscribe", { topics: [topics[4999], topics[0]] });
    expect(over).toMatchObject({
      success: false,
      errorCode: "SubscribeFailed",
      errorMessage: "Too many subscriptions for session",
    });
    // The socket keeps streaming, already-held topics are no new ones, and Unsubscribe frees room.
    expect((await c.request("Subscribe", { topics: [topics[0]] })).success).toBe(true);
    expect((await c.request("Unsubscribe", { topics: [topics[0]] })).success).toBe(true);
    expect((await c.request("Subscribe", { topics: [topics[4999]] })).success).toBe(true);
    await h.deps.market.tick();
    await c.waitFor("a rate of the last topic", (p) => p.topic === topics[4999]);
    expect(c.closed).toBeUndefined();
  });

  it("sends upstream's binary 0x00 keepalive and pings; answers the client's pings", async () => {
    const c = await connect();
    await until("two keepalives", () => c.binary.length >= 2 && c.pings >= 2, 4000);
    expect(c.binary.every((b) => b.length === 1 && b[0] === 0)).toBe(true);
    let pongs = 0;
    c.ws.on("pong", () => {
      pongs += 1;
    });
    c.ws.ping();
    await until("a pong", () => pongs === 1);
    expect(c.closed).toBeUndefined();
  });

  it("refuses a browser origin CORS_ORIGINS does not list; any other path is 404", async () => {
    await expect(Client.open(url, { origin: "https://evil.example.test" })).rejects.toThrow("HTTP 403");
    const ok = await connect({ origin: ORIGIN });
    expect(ok.ws.protocol).toBe("");
    await expect(Client.open(url.replace("/ws", "/websocket"))).rejects.toThrow("HTTP 404");
  });

  it("keeps no subscription across a reconnect", async () => {
    const u = await trader();
    const first = await connect();
    await first.authenticate(u.headers);
    await first.request("Subscribe", { topics: ["instrument:3"] });
    await first.close();
    const again = await connect();
    await again.authenticate(u.headers);
    await h.deps.market.tick();
    await sleep(50);
    expect(again.pushed).toHaveLength(0);
    await again.request("Subscribe", { topics: ["instrument:3"] });
    await h.deps.market.tick();
    await again.waitFor("a rate after subscribing again", (p) => p.topic === "instrument:3");
  });
});
