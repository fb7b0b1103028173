import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCidOf } from "../../src/modules/identity/identity.view.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import {
  CloseOrderResponse,
  HistoryResponse,
  OpenOrderResponse,
  OrderInfoResponse,
  PnlResponse,
  PortfolioResponse,
} from "../../src/modules/trading/trading.schemas.js";
import { engines, type Harness, type Headers, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const BY_UNITS = "/api/v1/trading/execution/demo/market-open-orders/by-units";
const closeUrl = (positionId: number) => `/api/v1/trading/execution/demo/market-close-orders/positions/${positionId}`;
const PORTFOLIO = "/api/v1/trading/info/demo/portfolio";
const PNL = "/api/v1/trading/info/demo/pnl";
const HISTORY = "/api/v1/trading/info/trade/demo/history";
const orderUrl = (orderId: number) => `/api/v1/trading/info/demo/orders/${orderId}`;

const AAPL = 1001;
const BTC = 100000;

describe.each(engines())("demo trading on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
  });
  afterAll(async () => h.close());

  const order = { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 1000 };

  const trader = () => h.user(["trade.demo:write"]);
  const post = (url: string, headers: Headers, payload: unknown, requestId: string = randomUUID()) =>
    h.app.inject({
      method: "POST",
      url,
      headers: { ...headers, "x-request-id": requestId },
      payload: payload as object,
    });
  const get = (url: string, headers: Headers) =>
    h.app.inject({ method: "GET", url, headers: { ...headers, "x-request-id": randomUUID() } });
  /** The current quote (pricing the instrument first if the engine has not yet, as a rates call does). */
  const quote = async (id: number) => (await currentQuotes(h.deps, [id])).get(id)!;
  /** Moves the feed along a scripted path, one tick per price (spread applied as configured). */
  const script = async (series: Record<number, number[]>) => {
    h.deps.market.useSource(new RecordedSource(series, h.deps.market.steps));
    const ticks = Math.max(...Object.values(series).map((s) => s.length));
    for (let i = 0; i < ticks; i++) await h.deps.market.tick();
  };

  it("opens a long at the ask, debits the cash in cents, and answers the spec's Order record", async () => {
    const u = await trader();
    const q = await quote(AAPL);
    const res = await post(BY_AMOUNT, u.headers, { ...order, Amount: 1234.56 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expectSchema(OpenOrderResponse, body);
    expect(body.orderForOpen).toMatchObject({
      instrumentID: AAPL,
      amount: 1234.56,
      isBuy: true,
      leverage: 1,
      stopLossRate: 0,
      takeProfitRate: 0,
      isTslEnabled: false,
      mirrorID: 0,
      orderType: 17,
      statusID: 1,
      CID: demoCidOf(u.user.gcid),
      rate: q.ask,
    });
    expect(body.orderForOpen.units).toBeCloseTo(1234.56 / q.ask, 10);
    expect(body.token).toMatch(/^[0-9a-f-]{36}$/);
    const portfolio = (await get(PORTFOLIO, u.headers)).json();
    expectSchema(PortfolioResponse, portfolio);
    expect(portfolio.clientPortfolio.credit).toBe(98765.44);
    expect(portfolio.clientPortfolio.positions).toHaveLength(1);
    expect(portfolio.clientPortfolio.positions[0]).toMatchObject({
      positionID: body.orderForOpen.positionID,
      openRate: q.ask,
      amount: 1234.56,
      isNoStopLoss: true,
      isNoTakeProfit: true,
    });
  });

  it("opens a short at the bid", async () => {
    const u = await trader();
    const q = await quote(BTC);
    const res = await post(BY_AMOUNT, u.headers, { InstrumentID: BTC, IsBuy: false, Leverage: 2, Amount: 500 });
    expect(res.statusCode).toBe(200);
    expect(res.json().orderForOpen).toMatchObject({ isBuy: false, leverage: 2, rate: q.bid });
    expect(res.json().orderForOpen.units).toBeCloseTo((500 * 2) / q.bid, 12);
  });

  it("reads body property names case-insensitively", async () => {
    const u = await trader();
    const res = await post(BY_AMOUNT, u.headers, { instrumentId: AAPL, isbuy: true, LEVERAGE: 2, amount: 50 });
    expect(res.statusCode).toBe(200);
    expect(res.json().orderForOpen).toMatchObject({ instrumentID: AAPL, leverage: 2, amount: 50 });
  });

  it("by-units: margin = units × rate ÷ leverage", async () => {
    const u = await trader();
    const q = await quote(AAPL);
    const res = await post(BY_UNITS, u.headers, { InstrumentID: AAPL, IsBuy: true, Leverage: 2, AmountInUnits: 10 });
    expect(res.statusCode).toBe(200);
    const o = res.json().orderForOpen;
    expect(o.units).toBe(10);
    expect(o.amountInUnits).toBe(10);
    expect(o.amount).toBe(Math.round(((10 * q.ask) / 2) * 100) / 100);
  });

  it("by-units: 422 when the units are worth less than the minimum, even less than a cent", async () => {
    const u = await trader();
    for (const units of [0.01, 1e-9]) {
      const res = await post(BY_UNITS, u.headers, {
        InstrumentID: AAPL,
        IsBuy: true,
        Leverage: 1,
        AmountInUnits: units,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().details[0]).toMatchObject({
        field: "body/AmountInUnits",
        message: expect.stringMatching(/minimum/),
      });
    }
    expect((await get(PORTFOLIO, u.headers)).json().clientPortfolio.positions).toEqual([]);
  });

  describe("validation: 422 with the reason", () => {
    const cases: [string, (q: { bid: number; ask: number }) => Record<string, unknown>, string, RegExp][] = [
      ["an unknown instrument", () => ({ ...order, InstrumentID: 987654 }), "body/InstrumentID", /no instrument/],
      ["a leverage the instrument does not allow", () => ({ ...order, Leverage: 3 }), "body/Leverage", /1, 2 or 5/],
      [
        "an amount below the instrument's minimum",
        () => ({ ...order, Amount: 9.99 }),
        "body/Amount",
        /^Body field Amount must be at least 10 USD \(the minimum position amount for AAPL\); got 9\.99 USD\.$/,
      ],
      ["more than two decimals", () => ({ ...order, Amount: 10.001 }), "body/Amount", /2 decimals/],
      ["a negative amount", () => ({ ...order, Amount: -5 }), "body/Amount", /positive/],
      [
        "more than the available cash",
        () => ({ ...order, Amount: 100000.01 }),
        "body/Amount",
        /^Body field Amount must be at most the available cash, 100000 USD; got 100000\.01 USD\.$/,
      ],
      [
        "a buy's stop-loss not below the bid",
        (q) => ({ ...order, StopLossRate: q.bid }),
        "body/StopLossRate",
        /below the current bid/,
      ],
      [
        "a sell's stop-loss not above the ask",
        (q) => ({ ...order, IsBuy: false, StopLossRate: q.ask }),
        "body/StopLossRate",
        /above the current ask/,
      ],
      [
        "a buy's take-profit not above the ask",
        (q) => ({ ...order, TakeProfitRate: q.ask }),
        "body/TakeProfitRate",
        /above the current ask/,
      ],
      [
        "a sell's take-profit not below the bid",
        (q) => ({ ...order, IsBuy: false, TakeProfitRate: q.bid }),
        "body/TakeProfitRate",
        /below the current bid/,
      ],
      [
        "IsNoStopLoss with a StopLossRate",
        (q) => ({ ...order, IsNoStopLoss: true, StopLossRate: q.bid * 0.9 }),
        "body/StopLossRate",
        /IsNoStopLoss/,
      ],
      [
        "IsNoTakeProfit with a TakeProfitRate",
        (q) => ({ ...order, IsNoTakeProfit: true, TakeProfitRate: q.ask * 1.1 }),
        "body/TakeProfitRate",
        /IsNoTakeProfit/,
      ],
      [
        "a trailing stop without a stop-loss",
        () => ({ ...order, IsTslEnabled: true }),
        "body/IsTslEnabled",
        /StopLossRate/,
      ],
      [
        "a missing required field",
        () => ({ InstrumentID: AAPL, IsBuy: true, Amount: 100 }),
        "body/Leverage",
        /required/,
      ],
    ];
    for (const [name, body, field, message] of cases) {
      it(name, async () => {
        const u = await trader();
        const q = await quote(AAPL);
        const res = await post(BY_AMOUNT, u.headers, body(q));
        expect(res.statusCode).toBe(422);
        const err = res.json();
        expect(err.errorCode).toBe("ValidationFailed");
        const detail = err.details.find((d: { field: string }) => d.field === field);
        expect(detail, JSON.stringify(err.details)).toBeDefined();
        expect(detail.message).toMatch(message);
        // Each detail is one sentence naming its wire field; so is errorMessage.
        for (const d of err.details) expect(d.message).toMatch(/^[A-Z][^\n]*\.$/);
        if (err.details.length === 1) expect(err.errorMessage).toBe(err.details[0].message);
        else expect(err.errorMessage).toMatch(/^The request has \d+ problems in .+; see details\.$/);
        // Nothing was opened and nothing debited.
        const p = (await get(PORTFOLIO, u.headers)).json().clientPortfolio;
        expect(p.positions).toEqual([]);
        expect(p.credit).toBe(100000);
      });
    }

    it("x-request-id is required and must be a uuid", async () => {
      const u = await trader();
      const { "x-request-id": _drop, ...noId } = u.headers;
      const missing = await h.app.inject({ method: "POST", url: BY_AMOUNT, headers: noId, payload: order });
      expect(missing.statusCode).toBe(422);
      expect(missing.json().details).toEqual([
        { field: "headers/x-request-id", message: "Header x-request-id is required." },
      ]);
      const bad = await post(BY_AMOUNT, u.headers, order, "not-a-uuid");
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errorMessage).toBe("Header x-request-id must be a UUID.");
    });

    it("several broken rules: one 422, a detail each, errorMessage listing the wire fields", async () => {
      const u = await trader();
      const res = await post(BY_AMOUNT, u.headers, { ...order, Leverage: 3, Amount: 9.99 });
      expect(res.statusCode).toBe(422);
      expect(res.json().errorMessage).toBe("The request has 2 problems in body/Leverage and body/Amount; see details.");
      expect(res.json().details).toEqual([
        { field: "body/Leverage", message: "Body field Leverage must be one of 1, 2 or 5 for AAPL; got 3." },
        {
          field: "body/Amount",
          message: "Body field Amount must be at least 10 USD (the minimum position amount for AAPL); got 9.99 USD.",
        },
      ]);
    });
  });

  describe("idempotency on x-request-id", () => {
    it("a retry with the same id and body returns the original response and opens nothing", async () => {
      const u = await trader();
      const id = randomUUID();
      const first = await post(BY_AMOUNT, u.headers, order, id);
      await script({ [AAPL]: [(await quote(AAPL)).mid * 1.01] });
      const again = await post(
        BY_AMOUNT,
        u.headers,
        { amount: 1000, leverage: 1, isBuy: true, instrumentID: AAPL },
        id,
      );
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(first.json());
      const p = (await get(PORTFOLIO, u.headers)).json().clientPortfolio;
      expect(p.positions).toHaveLength(1);
      expect(p.credit).toBe(99000);
    });

    it("the same id with a different body is 409 and opens nothing", async () => {
      const u = await trader();
      const id = randomUUID();
      expect((await post(BY_AMOUNT, u.headers, order, id)).statusCode).toBe(200);
      const other = await post(BY_AMOUNT, u.headers, { ...order, Amount: 2000 }, id);
      expect(other.statusCode).toBe(409);
      expect(other.json().errorCode).toBe("Conflict");
      expect(other.json().details).toEqual([
        {
          field: "headers/x-request-id",
          message: "Header x-request-id was already used with a different body or operation.",
        },
      ]);
      const onUnits = await post(
        BY_UNITS,
        u.headers,
        { InstrumentID: AAPL, IsBuy: true, Leverage: 1, AmountInUnits: 1 },
        id,
      );
      expect(onUnits.statusCode).toBe(409);
      expect((await get(PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(1);
    });

    it("ids are per caller, and a request that failed validation can be retried", async () => {
      const a = await trader();
      const b = await trader();
      const id = randomUUID();
      expect((await post(BY_AMOUNT, a.headers, order, id)).statusCode).toBe(200);
      expect((await post(BY_AMOUNT, b.headers, order, id)).statusCode).toBe(200);
      const c = await trader();
      const failing = randomUUID();
      expect((await post(BY_AMOUNT, c.headers, { ...order, Leverage: 3 }, failing)).statusCode).toBe(422);
      expect((await post(BY_AMOUNT, c.headers, { ...order, Leverage: 3 }, failing)).statusCode).toBe(422);
      expect((await post(BY_AMOUNT, c.headers, order, failing)).statusCode).toBe(200);
    });

    it("concurrent retries of one request open one position", async () => {
      const u = await trader();
      const id = randomUUID();
      const results = await Promise.all([1, 2, 3, 4].map(() => post(BY_AMOUNT, u.headers, order, id)));
      expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
      expect(new Set(results.map((r) => r.json().orderForOpen.orderID)).size).toBe(1);
      expect((await get(PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(1);
    });
  });

  describe("closing", () => {
    async function open(headers: Headers, body: Record<string, unknown> = order) {
      const res = await post(BY_AMOUNT, headers, body);
      expect(res.statusCode).toBe(200);
      return res.json().orderForOpen as { positionID: number; orderID: number; units: number; rate: number };
    }

    it("closes a long at the bid and settles P/L in cents", async () => {
      const u = await trader();
      await script({ [AAPL]: [200] });
      const o = await open(u.headers, { ...order, Amount: 1000 });
      await script({ [AAPL]: [210] });
      const q = await quote(AAPL);
      const res = await post(closeUrl(o.positionID), u.headers, { InstrumentID: AAPL });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expectSchema(CloseOrderResponse, body);
      const expected = Math.round(o.units * (q.bid - o.rate) * 100) / 100;
      expect(body.orderForClose).toMatchObject({
        positionID: o.positionID,
        instrumentID: AAPL,
        orderType: 19,
        statusID: 1,
        CID: demoCidOf(u.user.gcid),
        closeRate: q.bid,
        netProfit: expected,
      });
      expect(body.orderForClose.unitsToDeduct).toBe(o.units);
      const pnlBody = (await get(PNL, u.headers)).json();
      expectSchema(PnlResponse, pnlBody);
      const pnl = pnlBody.clientPortfolio;
      expect(pnl.positions).toEqual([]);
      expect(pnl.credit).toBe(Math.round((100000 + expected) * 100) / 100);
      expect(pnl.realizedPnL).toBe(expected);
      const history = (await get(HISTORY, u.headers)).json();
      expectSchema(HistoryResponse, history);
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({
        positionId: o.positionID,
        netProfit: expected,
        closeReason: "Manual",
        investment: 1000,
      });
    });

    it("closes part of a position, keeping the rest open with the margin split pro rata", async () => {
      const u = await trader();
      const o = await open(u.headers, { ...order, Amount: 1000 });
      const part = o.units / 4;
      const res = await post(closeUrl(o.positionID), u.headers, { instrumentID: AAPL, unitsToDeduct: part });
      expect(res.statusCode).toBe(200);
      expect(res.json().orderForClose.unitsToDeduct).toBeCloseTo(part, 12);
      const p = (await get(PORTFOLIO, u.headers)).json().clientPortfolio;
      expect(p.positions).toHaveLength(1);
      expect(p.positions[0].amount).toBe(750);
      expect(p.positions[0].units).toBeCloseTo(o.units - part, 12);
      expect(p.positions[0].isPartiallyAltered).toBe(true);
      const rest = await post(closeUrl(o.positionID), u.headers, { InstrumentID: AAPL, UnitsToDeduct: null });
      expect(rest.statusCode).toBe(200);
      expect((await get(HISTORY, u.headers)).json()).toHaveLength(2);
    });

    it("404 for another user's or an unknown position; 409 once closed; 422 on a wrong instrument or too many units", async () => {
      const owner = await trader();
      const other = await trader();
      const o = await open(owner.headers);
      expect((await post(closeUrl(o.positionID), other.headers, { InstrumentID: AAPL })).statusCode).toBe(404);
      expect((await post(closeUrl(99999999), owner.headers, { InstrumentID: AAPL })).statusCode).toBe(404);
      const wrong = await post(closeUrl(o.positionID), owner.headers, { InstrumentID: BTC });
      expect(wrong.statusCode).toBe(422);
      expect(wrong.json().details[0]).toEqual({
        field: "body/InstrumentID",
        message: `Body field InstrumentID must be the instrument of position ${o.positionID}, ${AAPL}; got ${BTC}.`,
      });
      const tooMany = await post(closeUrl(o.positionID), owner.headers, {
        InstrumentID: AAPL,
        UnitsToDeduct: o.units * 2,
      });
      expect(tooMany.statusCode).toBe(422);
      expect(tooMany.json().details[0].field).toBe("body/UnitsToDeduct");
      expect((await post(closeUrl(o.positionID), owner.headers, { InstrumentID: AAPL })).statusCode).toBe(200);
      const twice = await post(closeUrl(o.positionID), owner.headers, { InstrumentID: AAPL });
      expect(twice.statusCode).toBe(409);
    });

    it("a close retried with the same x-request-id replays instead of failing", async () => {
      const u = await trader();
      const o = await open(u.headers);
      const id = randomUUID();
      const first = await post(closeUrl(o.positionID), u.headers, { InstrumentID: AAPL }, id);
      const again = await post(closeUrl(o.positionID), u.headers, { InstrumentID: AAPL }, id);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(first.json());
    });

    it("concurrent closes of one position close it once", async () => {
      const u = await trader();
      const o = await open(u.headers);
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map(() => post(closeUrl(o.positionID), u.headers, { InstrumentID: AAPL })),
      );
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes).toEqual([200, 409, 409, 409, 409]);
      expect((await get(HISTORY, u.headers)).json()).toHaveLength(1);
      const pnl = (await get(PNL, u.headers)).json().clientPortfolio;
      expect(Math.round((pnl.credit - pnl.realizedPnL) * 100)).toBe(10_000_000);
    });

    it("order info shows the order and its position", async () => {
      const u = await trader();
      const o = await open(u.headers);
      const info = await get(orderUrl(o.orderID), u.headers);
      expect(info.statusCode).toBe(200);
      expectSchema(OrderInfoResponse, info.json());
      expect(info.json()).toMatchObject({
        orderID: o.orderID,
        orderType: 17,
        statusID: 1,
        instrumentID: AAPL,
        amount: 1000,
      });
      expect(info.json().positions[0]).toMatchObject({ positionID: o.positionID, isOpen: true, rate: o.rate });
      const stranger = await h.user(["trade.demo:read"]);
      expect((await get(orderUrl(o.orderID), stranger.headers)).statusCode).toBe(404);
    });

    it("history filters by minDate", async () => {
      const u = await trader();
      const o = await open(u.headers);
      await post(closeUrl(o.positionID), u.headers, { InstrumentID: AAPL });
      expect((await get(`${HISTORY}?minDate=2000-01-01`, u.headers)).json()).toHaveLength(1);
      expect((await get(`${HISTORY}?minDate=2999-01-01`, u.headers)).json()).toHaveLength(0);
      expect((await get(`${HISTORY}?minDate=yesterday`, u.headers)).statusCode).toBe(422);
    });
  });

  describe("triggers on a scripted price path", () => {
    const notificationsOf = async (userId: string) =>
      h.deps.db.kysely
        .selectFrom("notifications")
        .select(["message", "notificationType"])
        .where("userId", "=", userId)
        .where("notificationType", "=", "PositionClosed")
        .execute();

    it("a long's stop-loss fires on its own and closes at the stop rate, with a notification", async () => {
      const u = await trader();
      await script({ [AAPL]: [200] });
      const q = await quote(AAPL);
      const res = await post(BY_AMOUNT, u.headers, { ...order, StopLossRate: 195, TakeProfitRate: 220 });
      expect(res.statusCode).toBe(200);
      const o = res.json().orderForOpen;
      await script({ [AAPL]: [198, 196, 195.5] });
      expect((await get(PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(1);
      await script({ [AAPL]: [194] });
      expect((await get(PORTFOLIO, u.headers)).json().clientPortfolio.positions).toHaveLength(0);
      const [trade] = (await get(HISTORY, u.headers)).json();
      expect(trade).toMatchObject({ positionId: o.positionID, closeRate: 195, closeReason: "StopLoss" });
      expect(trade.netProfit).toBe(Math.round(o.units * (195 - q.ask) * 100) / 100);
      const notes = await notificationsOf(u.user.id);
      expect(notes).toHaveLength(1);
      expect(notes[0]!.message).toMatch(/^Your stop-loss closed AAPL \(position \d+\) at 195: -/);
    });

    it("a short's take-profit fires when the ask falls to it", async () => {
      const u = await trader();
      await script({ [BTC]: [60000] });
      const res = await post(BY_AMOUNT, u.headers, {
        InstrumentID: BTC,
        IsBuy: false,
        Leverage: 2,
        Amount: 1000,
        TakeProfitRate: 58000,
      });
      expect(res.statusCode).toBe(200);
      await script({ [BTC]: [59000, 58500, 57900] });
      const [trade] = (await get(HISTORY, u.headers)).json();
      expect(trade).toMatchObject({ closeRate: 58000, closeReason: "TakeProfit", isBuy: false });
      expect(trade.netProfit).toBeGreaterThan(0);
    });

    it("a trailing stop follows the best price at its gap and fires when the price falls back", async () => {
      const u = await trader();
      await script({ [AAPL]: [200] });
      const q = await quote(AAPL);
      const gap = 5;
      const res = await post(BY_AMOUNT, u.headers, { ...order, StopLossRate: q.bid - gap, IsTslEnabled: true });
      expect(res.statusCode).toBe(200);
      const positionId = res.json().orderForOpen.positionID;
      await script({ [AAPL]: [205, 212, 209] });
      const stopNow = (await get(PORTFOLIO, u.headers)).json().clientPortfolio.positions[0].stopLossRate;
      const bestBid = (await quote(AAPL)).bid; // 209's bid; the best was 212's
      expect(stopNow).toBeGreaterThan(q.bid - gap + 10);
      expect(stopNow).toBeLessThan(bestBid);
      await script({ [AAPL]: [207.5, 206] });
      const [trade] = (await get(HISTORY, u.headers)).json();
      expect(trade).toMatchObject({ positionId, closeReason: "TrailingStopLoss", trailingStopLoss: true });
      expect(trade.closeRate).toBeCloseTo(stopNow, 8);
    });

    it("a client close and a trigger at once close the position once", async () => {
      const u = await trader();
      await script({ [AAPL]: [200] });
      const res = await post(BY_AMOUNT, u.headers, { ...order, StopLossRate: 190 });
      const positionId = res.json().orderForOpen.positionID;
      h.deps.market.useSource(new RecordedSource({ [AAPL]: [180] }, h.deps.market.steps));
      const [tick, client] = await Promise.all([
        h.deps.market.tick(),
        post(closeUrl(positionId), u.headers, { InstrumentID: AAPL }),
      ]);
      expect(tick.length).toBeGreaterThan(0);
      expect([200, 404, 409]).toContain(client.statusCode);
      const history = (await get(HISTORY, u.headers)).json();
      expect(history).toHaveLength(1);
      const pnl = (await get(PNL, u.headers)).json().clientPortfolio;
      expect(pnl.positions).toHaveLength(0);
      expect(Math.round(pnl.credit * 100)).toBe(10_000_000 + Math.round(history[0].netProfit * 100));
      expect(await notificationsOf(u.user.id)).toHaveLength(1);
    });
  });

  it("the starting balance is configurable", async () => {
    const other = await startHarness(engine, { env: { DEMO_BALANCE: "2500.50", RATE_LIMITS_ENABLED: "false" } });
    try {
      const u = await other.user(["demo:read"]);
      const res = await other.app.inject({
        method: "GET",
        url: PNL,
        headers: { ...u.headers, "x-request-id": randomUUID() },
      });
      expect(res.json().clientPortfolio).toMatchObject({ credit: 2500.5, startingBalance: 2500.5, equity: 2500.5 });
    } finally {
      await other.close();
    }
  });
});
