import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/core/clock.js";
import type { OrderExecuted } from "../../src/core/events.js";
import { findInstruments } from "../../src/modules/market/find-instruments.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import {
  executeEntryOrder,
  expireEntryOrders,
  loadEntryOrders,
} from "../../src/modules/trading/entry-orders/entry-watch.js";
import { ENTRY_ORDER_LIFETIME_MS } from "../../src/modules/trading/entry-orders/place-entry-order.js";
import {
  CancelResponse,
  ExitsResponse,
  LimitOrderResponse,
  LookupResponse,
  UnifiedOrderResponse,
} from "../../src/modules/trading/orders/orders.schemas.js";
import { OrderInfoResponse, PortfolioResponse } from "../../src/modules/trading/trading.schemas.js";
import { engines, type Harness, type Headers, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const V2_ORDERS = "/api/v2/trading/execution/demo/orders";
const LOOKUP = "/api/v2/trading/info/demo/orders:lookup";
const LIMIT = "/api/v1/trading/execution/demo/limit-orders";
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const PORTFOLIO = "/api/v1/trading/info/demo/portfolio";
const HISTORY = "/api/v1/trading/info/trade/demo/history";
const INSTRUMENT = 1003;
const OTHER = 1004;

/** A clock the test moves (expiry); starts at the real now. */
function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => (offset += ms) } as Clock & {
    advance(ms: number): void;
  };
}

describe.each(engines())("the demo order book on %s", (engine) => {
  let h: Harness;
  const clock = movableClock();
  const executed: OrderExecuted[] = [];
  beforeAll(async () => {
    h = await startHarness(engine, { clock, env: { RATE_LIMITS_ENABLED: "false" } });
    h.deps.bus.subscribe("OrderExecuted", async (e) => {
      executed.push(e);
    });
  });
  afterAll(async () => h.close());

  const trader = () => h.user(["trade.demo:write"]);
  const send = (
    method: "POST" | "GET" | "DELETE" | "PATCH",
    url: string,
    headers: Headers,
    payload?: unknown,
    id?: string,
  ) =>
    h.app.inject({
      method,
      url,
      headers: { ...headers, "x-request-id": id ?? randomUUID() },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  /** Moves the feed to `mids` (one tick each) for the instruments given. */
  const script = async (series: Record<number, number[]>) => {
    await currentQuotes(h.deps, Object.keys(series).map(Number));
    h.deps.market.useSource(new RecordedSource(series, h.deps.market.steps));
    const ticks = Math.max(...Object.values(series).map((s) => s.length));
    for (let i = 0; i < ticks; i++) await h.deps.market.tick();
  };
  const quote = async (id: number) => (await currentQuotes(h.deps, [id])).get(id)!;
  const lookup = async (headers: Headers, query: string) => send("GET", `${LOOKUP}?${query}`, headers);
  const mit = (extra: Record<string, unknown> = {}) => ({
    action: "open",
    transaction: "buy",
    instrumentId: INSTRUMENT,
    orderType: "mit",
    triggerRate: 390,
    leverage: 1,
    amount: 100,
    ...extra,
  });

  it("v2 market order: the answer, lookup by orderId and by referenceId, and v1's order read agree", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const q = await quote(INSTRUMENT);
    const requestId = randomUUID();
    const res = await send(
      "POST",
      V2_ORDERS,
      u.headers,
      { action: "open", transaction: "buy", instrumentId: INSTRUMENT, leverage: 2, amount: 250, stopLossRate: 350 },
      requestId,
    );
    expect(res.statusCode, res.body).toBe(200);
    const placed = res.json();
    expectSchema(UnifiedOrderResponse, placed);
    expect(placed.referenceId).toBe(requestId);
    // Same x-request-id, same body: the same answer, nothing opened twice.
    const again = await send(
      "POST",
      V2_ORDERS,
      u.headers,
      { action: "open", transaction: "buy", instrumentId: INSTRUMENT, leverage: 2, amount: 250, stopLossRate: 350 },
      requestId,
    );
    expect(again.json()).toEqual(placed);

    const byId = (await lookup(u.headers, `orderId=${placed.orderId}`)).json();
    expectSchema(LookupResponse, byId);
    const byRef = (await lookup(u.headers, `referenceId=${requestId}`)).json();
    expect(byRef).toEqual(byId);
    expect(byId).toMatchObject({
      orderId: placed.orderId,
      action: "open",
      transaction: "buy",
      type: "mkt",
      etoroOrderTypeId: 17,
      status: { id: 1, name: "Executed", errorCode: 0, errorMessage: null },
      asset: { instrumentId: INSTRUMENT, leverage: 2, side: "long", settlementType: "cfd" },
      requestedAmount: 250,
      requestType: "byAmount",
      openStopLossRate: 350,
      stopLossType: "fixed",
    });
    expect(byId.positionExecutions).toHaveLength(1);
    expect(byId.positionExecutions[0]).toMatchObject({
      state: "open",
      investedAmountCurrency: 250,
      openingData: { avgPrice: q.ask },
    });
    const v1 = (await send("GET", `/api/v1/trading/info/demo/orders/${placed.orderId}`, u.headers)).json();
    expectSchema(OrderInfoResponse, v1);
    expect(v1.positions[0].positionID).toBe(byId.positionExecutions[0].positionId);
    expect(executed.some((e) => e.order.orderId === placed.orderId)).toBe(true);
  });

  it("v1 and v2 market orders with the same terms open the same position, and each reads through the other", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const v1 = await send("POST", BY_AMOUNT, u.headers, {
      InstrumentID: INSTRUMENT,
      IsBuy: false,
      Leverage: 1,
      Amount: 120,
    });
    const v2 = await send("POST", V2_ORDERS, u.headers, {
      action: "open",
      transaction: "sellShort",
      symbol: await lookupSymbol(),
      leverage: 1,
      amount: 120,
    });
    expect(v1.statusCode).toBe(200);
    expect(v2.statusCode, v2.body).toBe(200);
    const a = (await lookup(u.headers, `orderId=${v1.json().orderForOpen.orderID}`)).json();
    const b = (await lookup(u.headers, `orderId=${v2.json().orderId}`)).json();
    const shape = (x: { positionExecutions: { openingData: object; positionId: number }[] }) => ({
      ...x,
      orderId: 0,
      requestTime: "",
      lastUpdate: "",
      positionExecutions: x.positionExecutions.map((p) => ({
        ...p,
        positionId: 0,
        openingData: { ...p.openingData, orderId: 0, openTime: "", executionTime: "" },
      })),
    });
    expect(shape(b)).toEqual(shape(a));
    const v1read = await send("GET", `/api/v1/trading/info/demo/orders/${v2.json().orderId}`, u.headers);
    expect(v1read.statusCode).toBe(200);
    expect(v1read.json().positions[0].isOpen).toBe(true);
  });

  const lookupSymbol = async () => (await findInstruments(h.deps, [INSTRUMENT])).get(INSTRUMENT)!.symbol;

  it("v2 validation: one size only, contracts need a contract size, mit needs a trigger, opens only; unknown instrument 404", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ amount: 100, units: 1 }, "body/units", /exactly one of/],
      [{ amount: null }, "body/amount", /exactly one of/],
      [{ amount: null, contracts: 2 }, "body/contracts", /defines no contract size/],
      [{ orderType: "mit" }, "body/triggerRate", /required/],
      [{ triggerRate: 380 }, "body/triggerRate", /must be absent/],
      [{ action: "close" }, "body/action", /only orders to open/],
      [{ transaction: "buyToCover" }, "body/transaction", /to open/],
      [{ leverage: null }, "body/leverage", /required/],
      [{ leverage: 3 }, "body/leverage", /must be one of/],
      // An unleveraged buy of a stock settles REAL, as eligibility and costs name it (decision 0131).
      [{ settlementType: "cfd" }, "body/settlementType", /must be real for this order/],
      [{ settlementType: "real", leverage: 2 }, "body/settlementType", /must be cfd for this order/],
      [{ amount: 0.5 }, "body/amount", /at least/],
    ];
    for (const [extra, field, message] of cases) {
      const res = await send("POST", V2_ORDERS, u.headers, {
        action: "open",
        transaction: "buy",
        instrumentId: INSTRUMENT,
        leverage: 1,
        amount: 100,
        ...extra,
      });
      expect(res.statusCode, JSON.stringify(extra)).toBe(422);
      expect(res.json().details, JSON.stringify(extra)).toContainEqual(
        expect.objectContaining({ field, message: expect.stringMatching(message) }),
      );
    }
    const unknown = await send("POST", V2_ORDERS, u.headers, {
      action: "open",
      transaction: "buy",
      instrumentId: 987654,
      leverage: 1,
      amount: 100,
    });
    expect(unknown.statusCode).toBe(404);
    const noSymbol = await send("POST", V2_ORDERS, u.headers, {
      action: "open",
      transaction: "buy",
      symbol: "NOPE-X",
      leverage: 1,
      amount: 100,
    });
    expect(noSymbol.statusCode).toBe(404);
    const both = await lookup(u.headers, "orderId=1&referenceId=x");
    expect(both.statusCode).toBe(422);
    const neither = await lookup(u.headers, "");
    expect(neither.statusCode).toBe(422);
    expect((await lookup(u.headers, "orderId=999999999")).statusCode).toBe(404);
    expect((await send("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions).toEqual([]);
  });

  it("an entry order rests (pending in the portfolio), then executes once at market when the ask reaches it: event and notification", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const wrongSide = await send("POST", V2_ORDERS, u.headers, mit({ triggerRate: 410 }));
    expect(wrongSide.statusCode).toBe(422);
    expect(wrongSide.json().details[0]).toMatchObject({ field: "body/triggerRate" });
    const badStop = await send("POST", V2_ORDERS, u.headers, mit({ stopLossRate: 395 }));
    expect(badStop.statusCode).toBe(422);
    expect(badStop.json().details[0]).toMatchObject({ field: "body/stopLossRate" });

    const res = await send("POST", V2_ORDERS, u.headers, mit({ stopLossRate: 370, takeProfitRate: 420 }));
    expect(res.statusCode, res.body).toBe(200);
    const { orderId } = res.json();
    const portfolio = (await send("GET", PORTFOLIO, u.headers)).json();
    expectSchema(PortfolioResponse, portfolio);
    expect(portfolio.clientPortfolio.orders).toEqual([
      expect.objectContaining({ orderId, rate: 390, amount: 100, isBuy: true, stopLossRate: 370, takeProfitRate: 420 }),
    ]);
    expect(portfolio.clientPortfolio.credit).toBe(100000);
    const pending = (await lookup(u.headers, `orderId=${orderId}`)).json();
    expect(pending).toMatchObject({ type: "mit", status: { id: 0, name: "Pending" }, requestedTriggerRate: 390 });
    expect(pending.positionExecutions).toEqual([]);

    // Not yet: the ask stays above 390.
    await script({ [INSTRUMENT]: [395, 391] });
    expect((await lookup(u.headers, `orderId=${orderId}`)).json().status.id).toBe(0);
    // The ask falls through the trigger: it executes at the ask of that tick, once.
    await script({ [INSTRUMENT]: [388, 385, 389] });
    const done = (await lookup(u.headers, `orderId=${orderId}`)).json();
    expectSchema(LookupResponse, done);
    expect(done.status).toMatchObject({ id: 1, name: "Executed" });
    expect(done.positionExecutions).toHaveLength(1);
    const position = done.positionExecutions[0];
    expect(position.openingData.avgPrice).toBeLessThanOrEqual(390);
    expect(position.openingData.avgPrice).toBeGreaterThan(387);
    expect(position).toMatchObject({ state: "open", stopLossRate: 370, takeProfitRate: 420 });
    const after = (await send("GET", PORTFOLIO, u.headers)).json().clientPortfolio;
    expect(after.orders).toEqual([]);
    expect(after.positions).toHaveLength(1);
    expect(after.credit).toBe(99900);
    // The open it sent is the existing OrderExecuted event; the owner is notified.
    expect(executed.filter((e) => e.order.positionId === position.positionId)).toHaveLength(1);
    const notes = await h.deps.db.kysely
      .selectFrom("notifications")
      .select(["message", "notificationType"])
      .where("userId", "=", u.user.id)
      .where("notificationType", "=", "EntryOrder")
      .execute();
    expect(notes).toHaveLength(1);
    expect(notes[0]!.message).toMatch(
      new RegExp(`entry order ${orderId} to buy .* executed at .*position ${position.positionId}`),
    );
    // v1's order read reads the entry order too.
    const v1 = (await send("GET", `/api/v1/trading/info/demo/orders/${orderId}`, u.headers)).json();
    expect(v1).toMatchObject({ orderID: orderId, statusID: 1 });
    expect(v1.positions[0].positionID).toBe(position.positionId);
  });

  it("v1 limit orders: a sell rests until the bid rises to Rate; cancel through v1 and v2", async () => {
    const u = await trader();
    await script({ [OTHER]: [100] });
    const res = await send("POST", LIMIT, u.headers, {
      InstrumentID: OTHER,
      IsBuy: false,
      Leverage: 1,
      AmountInUnits: 2,
      Rate: 104,
    });
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(LimitOrderResponse, res.json());
    const sell = res.json().orderID;
    const other = (
      await send("POST", LIMIT, u.headers, { InstrumentID: OTHER, IsBuy: false, Leverage: 1, Amount: 50, Rate: 106 })
    ).json().orderID;
    const third = (
      await send("POST", LIMIT, u.headers, { InstrumentID: OTHER, IsBuy: false, Leverage: 1, Amount: 50, Rate: 107 })
    ).json().orderID;
    expect(
      (await send("GET", PORTFOLIO, u.headers))
        .json()
        .clientPortfolio.orders.map((o: { orderId: number }) => o.orderId),
    ).toEqual([sell, other, third]);

    for (const body of [{ Amount: 50, AmountInUnits: 1 }, {}]) {
      const bad = await send("POST", LIMIT, u.headers, {
        InstrumentID: OTHER,
        IsBuy: false,
        Leverage: 1,
        Rate: 106,
        ...body,
      });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().details[0].field).toMatch(/^body\/(Amount|AmountInUnits)$/);
    }
    const cancel = await send("DELETE", `${LIMIT}/${other}`, u.headers);
    expect(cancel.statusCode).toBe(200);
    expectSchema(CancelResponse, cancel.json());
    // Cancelling again: 200 (idempotent, as upstream documents for v2).
    expect((await send("DELETE", `${V2_ORDERS}/${other}`, u.headers)).statusCode).toBe(200);
    const cancelled = (await lookup(u.headers, `orderId=${other}`)).json();
    expect(cancelled.status).toMatchObject({ id: 2, name: "Cancelled" });
    expect(
      (await send("DELETE", `/api/v1/trading/execution/demo/market-open-orders/${third}`, u.headers)).statusCode,
    ).toBe(200);

    await script({ [OTHER]: [103, 104.5, 108] });
    const sold = (await lookup(u.headers, `orderId=${sell}`)).json();
    expect(sold).toMatchObject({
      status: { id: 1 },
      asset: { side: "short" },
      requestedUnits: 2,
      requestType: "byUnits",
    });
    expect(sold.positionExecutions[0].remainingUnits).toBe(2);
    expect((await lookup(u.headers, `orderId=${other}`)).json().status.id).toBe(2);
    const positions = (await send("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions;
    expect(positions).toHaveLength(1);
    // Cancelling what executed: 400 on every route; another's order or another kind: 404.
    expect((await send("DELETE", `${V2_ORDERS}/${sell}`, u.headers)).statusCode).toBe(400);
    expect((await send("DELETE", `${LIMIT}/${sell}`, u.headers)).statusCode).toBe(400);
    expect(
      (await send("DELETE", `/api/v1/trading/execution/demo/market-close-orders/${sell}`, u.headers)).statusCode,
    ).toBe(404);
    const stranger = await trader();
    expect((await send("DELETE", `${V2_ORDERS}/${third}`, stranger.headers)).statusCode).toBe(404);
    expect((await lookup(stranger.headers, `orderId=${sell}`)).statusCode).toBe(404);
  });

  it("v1 cancels of executed market orders: 400 for an open or a close order, 404 across kinds", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const open = (
      await send("POST", BY_AMOUNT, u.headers, { InstrumentID: INSTRUMENT, IsBuy: true, Leverage: 1, Amount: 100 })
    ).json().orderForOpen;
    const close = await send(
      "POST",
      `/api/v1/trading/execution/demo/market-close-orders/positions/${open.positionID}`,
      u.headers,
      { InstrumentID: INSTRUMENT },
    );
    const closeOrderId = close.json().orderForClose.orderID;
    expect(
      (await send("DELETE", `/api/v1/trading/execution/demo/market-open-orders/${open.orderID}`, u.headers)).statusCode,
    ).toBe(400);
    expect(
      (await send("DELETE", `/api/v1/trading/execution/demo/market-close-orders/${closeOrderId}`, u.headers))
        .statusCode,
    ).toBe(400);
    expect(
      (await send("DELETE", `/api/v1/trading/execution/demo/market-close-orders/${open.orderID}`, u.headers))
        .statusCode,
    ).toBe(404);
    expect(
      (await send("DELETE", `/api/v1/trading/execution/demo/market-open-orders/${closeOrderId}`, u.headers)).statusCode,
    ).toBe(404);
    const closeLookup = (await lookup(u.headers, `orderId=${closeOrderId}`)).json();
    expectSchema(LookupResponse, closeLookup);
    expect(closeLookup).toMatchObject({ action: "close", transaction: "sell", positionsToClose: [open.positionID] });
    expect(closeLookup.positionExecutions[0]).toMatchObject({ positionId: open.positionID, state: "closed" });
  });

  it("a cancel racing the execution: exactly one wins, every time", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const outcomes = { executed: 0, cancelled: 0 };
    for (let i = 0; i < 6; i++) {
      const { orderId } = (await send("POST", V2_ORDERS, u.headers, mit({ amount: 10 }))).json();
      const [execution, cancel] = await Promise.all([
        executeEntryOrder(h.deps, orderId),
        send("DELETE", `${V2_ORDERS}/${orderId}`, u.headers),
      ]);
      const info = (await lookup(u.headers, `orderId=${orderId}`)).json();
      if (execution === "executed") {
        outcomes.executed += 1;
        expect(cancel.statusCode).toBe(400);
        expect(info.status.id).toBe(1);
        expect(info.positionExecutions).toHaveLength(1);
      } else {
        outcomes.cancelled += 1;
        expect(execution).toBe("gone");
        expect(cancel.statusCode).toBe(200);
        expect(info.status.id).toBe(2);
        expect(info.positionExecutions).toEqual([]);
      }
    }
    const positions = (await send("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions;
    expect(positions).toHaveLength(outcomes.executed);
    expect(outcomes.executed + outcomes.cancelled).toBe(6);
  });

  it("fires exactly once when two instances execute the same order", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const { orderId } = (await send("POST", V2_ORDERS, u.headers, mit({ amount: 10 }))).json();
    const results = await Promise.all([executeEntryOrder(h.deps, orderId), executeEntryOrder(h.deps, orderId)]);
    expect(results.filter((r) => r === "executed")).toHaveLength(1);
    expect((await send("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(1);
  });

  it("survives a restart: pending orders are reloaded into the index and still fire", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const { orderId } = (await send("POST", V2_ORDERS, u.headers, mit({ triggerRate: 380 }))).json();
    const index = h.deps.entryOrders.index;
    expect(index.has(orderId)).toBe(true);
    index.remove(orderId);
    expect(index.has(orderId)).toBe(false);
    expect(await loadEntryOrders(h.deps)).toBeGreaterThanOrEqual(1);
    expect(index.has(orderId)).toBe(true);
    await script({ [INSTRUMENT]: [379] });
    expect((await lookup(u.headers, `orderId=${orderId}`)).json().status.id).toBe(1);
    expect(index.has(orderId)).toBe(false);
  });

  it("a fired order the rules now refuse is rejected with the reason, and notified", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    // Worth all the cash at the trigger; the cash is spent meanwhile, so the open is refused.
    const { orderId } = (await send("POST", V2_ORDERS, u.headers, mit({ triggerRate: 360, amount: 60000 }))).json();
    expect(
      (await send("POST", BY_AMOUNT, u.headers, { InstrumentID: INSTRUMENT, IsBuy: true, Leverage: 1, Amount: 50000 }))
        .statusCode,
    ).toBe(200);
    await script({ [INSTRUMENT]: [359] });
    const info = (await lookup(u.headers, `orderId=${orderId}`)).json();
    expect(info.status).toMatchObject({ id: 3, name: "Rejected", errorCode: 1 });
    expect(info.status.errorMessage).toMatch(/cash/);
    const notes = await h.deps.db.kysely
      .selectFrom("notifications")
      .select("message")
      .where("userId", "=", u.user.id)
      .where("notificationType", "=", "EntryOrder")
      .execute();
    expect(notes.map((n) => n.message)).toEqual([expect.stringMatching(/was rejected/)]);
  });

  it("entry orders expire after their lifetime", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const { orderId } = (await send("POST", V2_ORDERS, u.headers, mit({ triggerRate: 300 }))).json();
    expect(await expireEntryOrders(h.deps)).toBe(0);
    clock.advance(ENTRY_ORDER_LIFETIME_MS + 1000);
    expect(await expireEntryOrders(h.deps)).toBeGreaterThanOrEqual(1);
    expect((await lookup(u.headers, `orderId=${orderId}`)).json().status).toMatchObject({ id: 4, name: "Expired" });
    expect(h.deps.entryOrders.index.has(orderId)).toBe(false);
    expect((await send("DELETE", `${V2_ORDERS}/${orderId}`, u.headers)).statusCode).toBe(400);
  });

  it("changes an open position's stop-loss, take-profit and trailing flag under the open's rules; the trigger index follows", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const open = (
      await send("POST", BY_AMOUNT, u.headers, {
        InstrumentID: INSTRUMENT,
        IsBuy: true,
        Leverage: 1,
        Amount: 100,
        StopLossRate: 350,
      })
    ).json().orderForOpen;
    const url = `/api/v2/trading/execution/demo/positions/${open.positionID}`;
    const bad = await send("PATCH", url, u.headers, { stopLossRate: 405, takeProfitRate: 399 });
    expect(bad.statusCode).toBe(422);
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(["body/stopLossRate", "body/takeProfitRate"]);
    const trailingNoStop = await send("PATCH", url, u.headers, { stopLossRate: null, stopLossType: "trailing" });
    expect(trailingNoStop.statusCode).toBe(422);

    const res = await send("PATCH", url, u.headers, { stopLossRate: 390, takeProfitRate: 450 });
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(ExitsResponse, res.json());
    expect(res.json()).toMatchObject({
      positionId: open.positionID,
      stopLossRate: 390,
      takeProfitRate: 450,
      isTslEnabled: false,
    });
    expect(h.deps.triggers.index.currentStop(open.positionID)).toBe(390);
    const position = (await send("GET", PORTFOLIO, u.headers)).json().clientPortfolio.positions[0];
    expect(position).toMatchObject({
      stopLossRate: 390,
      takeProfitRate: 450,
      isNoStopLoss: false,
      isNoTakeProfit: false,
    });
    // Absent keeps; the new stop fires where the old one would not have.
    const keep = await send("PATCH", url, u.headers, { takeProfitRate: null });
    expect(keep.json()).toMatchObject({ stopLossRate: 390, takeProfitRate: 0 });
    await script({ [INSTRUMENT]: [389] });
    const history = (await send("GET", HISTORY, u.headers)).json();
    expect(history[0]).toMatchObject({ positionId: open.positionID, closeReason: "StopLoss", closeRate: 390 });
    expect((await send("PATCH", url, u.headers, { stopLossRate: 300 })).statusCode).toBe(409);
    const stranger = await trader();
    expect((await send("PATCH", url, stranger.headers, { stopLossRate: 300 })).statusCode).toBe(404);
  });

  it("a trailing flag set on an open position trails from the stop's gap", async () => {
    const u = await trader();
    await script({ [INSTRUMENT]: [400] });
    const open = (
      await send("POST", BY_AMOUNT, u.headers, { InstrumentID: INSTRUMENT, IsBuy: true, Leverage: 1, Amount: 100 })
    ).json().orderForOpen;
    const url = `/api/v2/trading/execution/demo/positions/${open.positionID}`;
    const res = await send("PATCH", url, u.headers, { stopLossRate: 390, stopLossType: "trailing" });
    expect(res.json()).toMatchObject({ isTslEnabled: true, stopLossRate: 390 });
    await script({ [INSTRUMENT]: [420] });
    expect(h.deps.triggers.index.currentStop(open.positionID)).toBeGreaterThan(409);
  });
});
