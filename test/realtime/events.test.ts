import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { Client, listening, sleep } from "./client.js";

const ETH = 100001;
const OPEN = "/api/v1/trading/execution/demo/market-open-orders/by-amount";

describe.each(engines())("private and notification events on the real-time channel on %s", (engine) => {
  let h: Harness;
  let url: string;
  const open: Client[] = [];

  const call = (u: TestUser, method: "GET" | "POST" | "PATCH", path: string, body?: unknown) =>
    h.app.inject({
      method,
      url: path,
      headers: { ...u.headers, "x-request-id": randomUUID() },
      payload: body as object,
    });

  const subscribed = async (u: TestUser, topics: string[]) => {
    const c = await Client.open(url);
    open.push(c);
    expect((await c.authenticate(u.headers)).success).toBe(true);
    expect((await c.request("Subscribe", { topics, snapshot: false })).success).toBe(true);
    return c;
  };

  beforeAll(async () => {
    h = await startHarness(engine);
    url = await listening(h.app);
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {});
    await h.close();
  });

  it("pushes Trading.OrderForOpen.Update for an order opened over REST, matching its order record", async () => {
    const u = await h.user(["trade.demo:write", "trade.demo:read"]);
    const other = await h.user(["trade.demo:write", "trade.demo:read"]);
    const c = await subscribed(u, ["private"]);
    const bystander = await subscribed(other, ["private"]);
    const opened = await call(u, "POST", OPEN, { InstrumentID: ETH, IsBuy: true, Leverage: 2, Amount: 500 });
    expect(opened.statusCode).toBe(200);
    const order = opened.json().orderForOpen;
    const event = await c.waitFor("the open order's event", (p) => p.topic === "private");
    expect(event.type).toBe("Trading.OrderForOpen.Update");
    const info = (await call(u, "GET", `/api/v1/trading/info/demo/orders/${order.orderID}`)).json();
    expect(event.content).toMatchObject({
      OrderID: order.orderID,
      PositionID: order.positionID,
      OrderType: 17,
      StatusID: info.statusID,
      StatusId: info.statusID,
      CID: info.CID,
      InstrumentID: ETH,
      Amount: info.amount,
      Units: info.units,
      Rate: order.rate,
      Leverage: 2,
      IsBuy: true,
      RequestToken: info.token,
      RequestOccurred: info.requestOccurred,
      ErrorCode: 0,
    });
    // Numbers stay numbers in private content (upstream's sample), unlike rates.
    expect(typeof event.content.OrderID).toBe("number");
    await sleep(50);
    expect(bystander.pushed).toHaveLength(0);
  });

  it("pushes Trading.OrderForCloseMultiple.Update when the client closes a position", async () => {
    const u = await h.user(["trade.demo:write", "trade.demo:read"]);
    const opened = (await call(u, "POST", OPEN, { InstrumentID: ETH, IsBuy: false, Leverage: 1, Amount: 200 })).json();
    const c = await subscribed(u, ["private"]);
    const positionId = opened.orderForOpen.positionID;
    const closed = await call(u, "POST", `/api/v1/trading/execution/demo/market-close-orders/positions/${positionId}`, {
      InstrumentId: ETH,
    });
    expect(closed.statusCode).toBe(200);
    const order = closed.json().orderForClose;
    const event = await c.waitFor("the close event", (p) => p.topic === "private");
    expect(event.type).toBe("Trading.OrderForCloseMultiple.Update");
    expect(event.content).toMatchObject({
      OrderID: order.orderID,
      OrderType: 19,
      PositionID: positionId,
      InstrumentID: ETH,
      EndRate: order.closeRate,
      NetProfit: order.netProfit,
      UnitsToDeduct: order.unitsToDeduct,
      CloseReason: 0,
      CloseReasonName: "Manual",
      IsFullyClosed: true,
    });
  });

  it("pushes Trading.PositionUpdate when the owner changes a position's stop-loss and take-profit", async () => {
    const u = await h.user(["trade.demo:write", "trade.demo:read"]);
    const opened = (await call(u, "POST", OPEN, { InstrumentID: ETH, IsBuy: true, Leverage: 1, Amount: 250 })).json();
    const positionId = opened.orderForOpen.positionID;
    const c = await subscribed(u, ["private"]);
    const bid = (await call(u, "GET", `/api/v1/market-data/instruments/rates?instrumentIds=${ETH}`)).json().rates[0]
      .bid;
    const stopLossRate = Math.round(bid * 0.8 * 100) / 100;
    const takeProfitRate = Math.round(bid * 1.3 * 100) / 100;
    const changed = await call(u, "PATCH", `/api/v2/trading/execution/demo/positions/${positionId}`, {
      stopLossRate,
      takeProfitRate,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const event = await c.waitFor("the position update", (p) => p.type === "Trading.PositionUpdate");
    expect(event.topic).toBe("private");
    expect(event.content).toMatchObject({
      PositionID: positionId,
      InstrumentID: ETH,
      IsBuy: true,
      StopLossRate: stopLossRate,
      TakeProfitRate: takeProfitRate,
      IsTslEnabled: false,
      IsNoStopLoss: false,
      IsNoTakeProfit: false,
    });
    // The portfolio shows the same levels.
    const portfolio = (await call(u, "GET", "/api/v1/trading/info/demo/portfolio")).json();
    const position = portfolio.clientPortfolio.positions.find(
      (p: { positionID: number }) => p.positionID === positionId,
    );
    expect(position).toMatchObject({ stopLossRate, takeProfitRate });
  });

  it("pushes the close of a stop-loss that fires on its own, then the notification the REST list shows", async () => {
    const u = await h.user(["trade.demo:write", "trade.demo:read", "notifications:read"]);
    const rates = (await call(u, "GET", `/api/v1/market-data/instruments/rates?instrumentIds=${ETH}`)).json().rates[0];
    const stopLossRate = Math.round(rates.bid * 0.9 * 100) / 100;
    const opened = (
      await call(u, "POST", OPEN, {
        InstrumentID: ETH,
        IsBuy: true,
        Leverage: 1,
        Amount: 300,
        StopLossRate: stopLossRate,
      })
    ).json().orderForOpen;
    const c = await subscribed(u, ["private", "notifications", `instrument:${ETH}`]);
    // The price falls through the stop on the next tick; nobody calls anything.
    h.deps.market.useSource(new RecordedSource({ [ETH]: [rates.bid * 0.8] }, h.deps.market.steps));
    await h.deps.market.tick();
    const close = await c.waitFor("the stop-loss close", (p) => p.type === "Trading.OrderForCloseMultiple.Update");
    expect(close.content).toMatchObject({
      PositionID: opened.positionID,
      CloseReason: 1,
      CloseReasonName: "StopLoss",
      EndRate: stopLossRate,
    });
    // The tick's rate reached the socket before the close it caused.
    const order = c.pushed.map((p) => p.topic);
    expect(order.indexOf(`instrument:${ETH}`)).toBeLessThan(order.indexOf("private"));
    const note = await c.waitFor("the notification", (p) => p.topic === "notifications");
    expect(note.type).toBe("Notifications.Notification.Created");
    const list = (await call(u, "GET", "/api/v1/notifications/messages")).json();
    const item = list.messages.find((m: { messageId: string }) => m.messageId === note.content.messageId);
    expect(item).toEqual({ ...note.content, readStatus: item.readStatus });
    expect(note.content.notificationType).toBe("PositionClosed");
    const history = (await call(u, "GET", "/api/v1/trading/info/trade/demo/history?page=1&pageSize=5")).json();
    expect(history[0]).toMatchObject({
      positionId: opened.positionID,
      closeReason: "StopLoss",
      closeRate: stopLossRate,
    });
  });

  it("sends notifications only to a socket subscribed to them", async () => {
    const u = await h.user(["trade.demo:write", "trade.demo:read", "notifications:read"]);
    const privateOnly = await subscribed(u, ["private"]);
    const both = await subscribed(u, ["notifications"]);
    const opened = (await call(u, "POST", OPEN, { InstrumentID: ETH, IsBuy: true, Leverage: 1, Amount: 100 })).json();
    await call(
      u,
      "POST",
      `/api/v1/trading/execution/demo/market-close-orders/positions/${opened.orderForOpen.positionID}`,
      {
        InstrumentId: ETH,
      },
    );
    await both.waitFor("the notification", (p) => p.topic === "notifications");
    await privateOnly.waitFor("the close", (p) => p.type === "Trading.OrderForCloseMultiple.Update");
    expect(privateOnly.of("notifications")).toHaveLength(0);
    expect(both.of("private")).toHaveLength(0);
  });

  it("pushes Trading.PositionUpdate when a trailing stop moves, with the level the portfolio shows", async () => {
    const u = await h.user(["trade.demo:write", "trade.demo:read"]);
    const bid = (await call(u, "GET", `/api/v1/market-data/instruments/rates?instrumentIds=${ETH}`)).json().rates[0]
      .bid;
    const stop = Math.round(bid * 0.9 * 100) / 100;
    const opened = (
      await call(u, "POST", OPEN, {
        InstrumentID: ETH,
        IsBuy: true,
        Leverage: 1,
        Amount: 300,
        StopLossRate: stop,
        IsTslEnabled: true,
      })
    ).json().orderForOpen;
    // Opened before the socket: watched from the portfolio when `private` is subscribed.
    const c = await subscribed(u, ["private"]);
    h.deps.market.useSource(new RecordedSource({ [ETH]: [bid * 1.05, bid * 1.1, bid * 1.08] }, h.deps.market.steps));
    for (let i = 0; i < 3; i++) await h.deps.market.tick();
    await c.waitFor("two moves", () => c.pushed.filter((p) => p.type === "Trading.PositionUpdate").length >= 2);
    await sleep(50);
    const updates = c.pushed.filter((p) => p.type === "Trading.PositionUpdate");
    // Up twice with the price, not back down when it eased.
    expect(updates).toHaveLength(2);
    const levels = updates.map((p) => p.content.StopLossRate as number);
    expect(levels[0]).toBeGreaterThan(stop);
    expect(levels[1]).toBeGreaterThan(levels[0]!);
    expect(updates[1]!.content).toMatchObject({ PositionID: opened.positionID, InstrumentID: ETH, IsTslEnabled: true });
    const portfolio = (await call(u, "GET", "/api/v1/trading/info/demo/portfolio")).json();
    const position = portfolio.clientPortfolio.positions.find(
      (p: { positionID: number }) => p.positionID === opened.positionID,
    );
    expect(position.stopLossRate).toBe(levels[1]);

    // Opened while the socket listens: watched from its OrderExecuted.
    const now = h.deps.market.quote(ETH)!.bid;
    const second = (
      await call(u, "POST", OPEN, {
        InstrumentID: ETH,
        IsBuy: true,
        Leverage: 1,
        Amount: 300,
        StopLossRate: Math.round(now * 0.9 * 100) / 100,
        IsTslEnabled: true,
      })
    ).json().orderForOpen;
    h.deps.market.useSource(new RecordedSource({ [ETH]: [now * 1.2] }, h.deps.market.steps));
    await h.deps.market.tick();
    await c.waitFor(
      "the new position's move",
      (p) => p.type === "Trading.PositionUpdate" && p.content.PositionID === second.positionID,
    );
  });
});
