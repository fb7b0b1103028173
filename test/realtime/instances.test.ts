import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import type { Deps } from "../../src/modules/context.js";
import { startMarket } from "../../src/modules/market/quotes.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { REDIS_TEST_URL } from "../support/services.js";
import { Client, listening, until } from "./client.js";

const withRedis = inject("services").redis;
const BTC = 100000;

interface Instance {
  deps: Deps;
  app: App;
  url: string;
}

/** Two instances on one store and one Redis, the market started on both as `serve` does. */
describe.each(withRedis ? engines() : [])("the real-time channel on two instances on %s", (engine) => {
  let h: Harness;
  let a: Instance;
  let b: Instance;
  const open: Client[] = [];
  const connect = async (i: Instance, headers: Record<string, string>, topics: string[]) => {
    const c = await Client.open(i.url);
    open.push(c);
    expect((await c.authenticate(headers)).success).toBe(true);
    expect((await c.request("Subscribe", { topics, snapshot: true })).success).toBe(true);
    return c;
  };
  const leader = () => [a, b].find((i) => i.deps.market.isLeader);
  const follower = () => [a, b].find((i) => !i.deps.market.isLeader);

  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        REDIS_URL: REDIS_TEST_URL,
        REDIS_NAMESPACE: `test-${randomUUID()}`,
        MARKET_LEASE_KEY: `sta:test:market:${randomUUID()}`,
        MARKET_TICK_MS: "40",
        REALTIME_KEEPALIVE_MS: "0",
        REALTIME_MAX_CONNECTIONS_PER_USER: "2",
      },
    });
    const depsB = await createDeps(h.config);
    a = { deps: h.deps, app: h.app, url: await listening(h.app) };
    const appB = await buildApp(h.config, depsB);
    b = { deps: depsB, app: appB, url: await listening(appB) };
    await startMarket(a.deps);
    await startMarket(b.deps);
    await until(
      "one instance leads",
      () => leader() !== undefined && follower() !== undefined && b.deps.market.steps > 3,
    );
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {});
    await b.app.close();
    await closeDeps(b.deps);
    await h.close();
  });

  it("pushes the one price stream on both instances: the same rate ids and prices, in order", async () => {
    const u = await h.user(["trade.demo:read"]);
    const [ca, cb] = [
      await connect(a, u.headers, [`instrument:${BTC}`]),
      await connect(b, u.headers, [`instrument:${BTC}`]),
    ];
    const from = Math.max(a.deps.market.steps, b.deps.market.steps) + 2;
    await until("ten more steps on both sockets", () =>
      [ca, cb].every((c) => c.of(`instrument:${BTC}`).some((p) => Number(p.content.PriceRateID) >= from + 10)),
    );
    const byStep = (c: Client) => {
      const out = new Map<number, string>();
      let state: Record<string, unknown> = {};
      for (const p of c.of(`instrument:${BTC}`)) {
        state = { ...state, ...p.content };
        out.set(Number(p.content.PriceRateID), `${state.Bid}/${state.Ask}`);
      }
      return out;
    };
    const [sa, sb] = [byStep(ca), byStep(cb)];
    for (const c of [ca, cb]) {
      const steps = c.of(`instrument:${BTC}`).map((p) => Number(p.content.PriceRateID));
      expect(steps).toEqual([...steps].sort((x, y) => x - y));
    }
    let common = 0;
    for (const [step, price] of sa) {
      if (step < from || !sb.has(step)) continue;
      expect(sb.get(step)).toBe(price);
      common += 1;
    }
    expect(common).toBeGreaterThanOrEqual(5);
  });

  it("delivers order events and notifications to a socket on the other instance", async () => {
    const u = await h.user(["trade.demo:read", "trade.demo:write", "notifications:read"]);
    const other = a === leader() ? b : a;
    const c = await connect(other, u.headers, ["private", "notifications"]);
    const through = other === a ? b : a;
    const call = (path: string, payload: object) =>
      through.app.inject({
        method: "POST",
        url: path,
        headers: { ...u.headers, "x-request-id": randomUUID() },
        payload,
      });
    const opened = (
      await call("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
        InstrumentID: BTC,
        IsBuy: true,
        Leverage: 1,
        Amount: 100,
      })
    ).json().orderForOpen;
    const open = await c.waitFor("the open event", (p) => p.type === "Trading.OrderForOpen.Update");
    expect(open.content.OrderID).toBe(opened.orderID);
    await call(`/api/v1/trading/execution/demo/market-close-orders/positions/${opened.positionID}`, {
      InstrumentId: BTC,
    });
    const close = await c.waitFor("the close event", (p) => p.type === "Trading.OrderForCloseMultiple.Update");
    expect(close.content.PositionID).toBe(opened.positionID);
    const note = await c.waitFor("the notification", (p) => p.topic === "notifications");
    expect(note.content.notificationType).toBe("PositionClosed");
    // Exactly once each, though both instances hear every event.
    expect(c.of("private")).toHaveLength(2);
    expect(c.of("notifications")).toHaveLength(1);
  });

  it("keeps streaming to existing sockets when the leader stops: the new leader's ticks arrive without a reconnect", async () => {
    const u = await h.user(["trade.demo:read"]);
    const lead = leader()!;
    const follow = follower()!;
    const c = await connect(follow, u.headers, [`instrument:${BTC}`]);
    await lead.deps.market.stop();
    await until("the other instance leads", () => follow.deps.market.isLeader, 5000);
    const after = follow.deps.market.steps + 5;
    await c.waitFor("rates of the new leader", (p) => Number(p.content.PriceRateID) >= after, 5000);
    const steps = c.of(`instrument:${BTC}`).map((p) => Number(p.content.PriceRateID));
    expect(steps).toEqual([...steps].sort((x, y) => x - y));
    expect(new Set(steps).size).toBe(steps.length);
    expect(c.closed).toBeUndefined();
  });

  it("caps a user's sockets across instances: two anywhere, the third refused on either, a closed one frees its place", async () => {
    const u = await h.user(["trade.demo:read"]);
    const onA = await connect(a, u.headers, ["private"]);
    await connect(b, u.headers, ["private"]);
    for (const i of [a, b]) {
      const third = await Client.open(i.url);
      open.push(third);
      expect(await third.authenticate(u.headers)).toMatchObject({ success: false, errorCode: "TooManyRequests" });
      await until("the refused socket is closed", () => third.closed !== undefined);
    }
    await onA.close();
    // Its claim leaves Redis a moment after the close: a new socket on the other instance gets in.
    let admitted = false;
    for (let attempt = 0; attempt < 20 && !admitted; attempt++) {
      const again = await Client.open(b.url);
      open.push(again);
      admitted = (await again.authenticate(u.headers)).success;
    }
    expect(admitted).toBe(true);
  });
});
