import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRetention } from "../../src/modules/maintenance/retention.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { chargeOvernightFees } from "../../src/modules/trading/costs/charge-overnight-fees.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";

const AAPL = 1001;
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";

describe.each(engines())("overnight fees on %s", (engine) => {
  // Monday 23 November 2026, noon UTC; the rollover is 17:00 New York = 22:00 UTC.
  let now = Date.parse("2026-11-23T12:00:00.000Z");
  let h: Harness;
  let u: TestUser;
  beforeAll(async () => {
    h = await startHarness(engine, { clock: { now: () => new Date(now) } });
    u = await h.user(["trade.demo:write"]);
  });
  afterAll(async () => h.close());

  const get = async (url: string) =>
    (await h.app.inject({ method: "GET", url, headers: { ...u.headers, "x-request-id": rid() } })).json();

  it("charges leveraged positions once per rollover, three nights on Friday, and shows them in P/L and history", async () => {
    await currentQuotes(h.deps, [AAPL]);
    const open = async (leverage: number) => {
      const res = await h.app.inject({
        method: "POST",
        url: BY_AMOUNT,
        headers: { ...u.headers, "x-request-id": rid() },
        payload: { InstrumentID: AAPL, IsBuy: true, Leverage: leverage, Amount: 1000 },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().orderForOpen.positionID as number;
    };
    const cfd = await open(2);
    const real = await open(1);
    const cash0 = (await get("/api/v1/trading/info/demo/pnl")).clientPortfolio.credit as number;

    // Before the rollover: nothing.
    expect((await chargeOvernightFees(h.deps)).charged).toBe(0);

    // Tuesday: one rollover passed. 2,000 USD exposure × 6.4% / 365 = 0.35 USD.
    now = Date.parse("2026-11-24T12:00:00.000Z");
    const passes = await Promise.all([chargeOvernightFees(h.deps), chargeOvernightFees(h.deps), runRetention(h.deps)]);
    expect(passes[0].charged + passes[1].charged + passes[2].overnightFees).toBe(1);
    expect((await chargeOvernightFees(h.deps)).charged).toBe(0);
    let pnl = await get("/api/v1/trading/info/demo/pnl");
    expect(pnl.clientPortfolio.credit).toBeCloseTo(cash0 - 0.35, 10);
    const fees = (p: { positionID: number; totalFees: number }[]) => new Map(p.map((x) => [x.positionID, x.totalFees]));
    expect(fees(pnl.clientPortfolio.positions).get(cfd)).toBe(0.35);
    expect(fees(pnl.clientPortfolio.positions).get(real)).toBe(0);

    // Saturday: Tuesday, Wednesday, Thursday (0.35 each) and Friday (three nights, 1.05).
    now = Date.parse("2026-11-28T12:00:00.000Z");
    expect((await chargeOvernightFees(h.deps)).charged).toBe(4);
    // Sunday's and Saturday's rollovers charge nothing for a stock.
    now = Date.parse("2026-11-29T23:30:00.000Z");
    expect((await chargeOvernightFees(h.deps)).charged).toBe(0);
    pnl = await get("/api/v1/trading/info/demo/pnl");
    expect(fees(pnl.clientPortfolio.positions).get(cfd)).toBe(2.45);
    expect(pnl.clientPortfolio.credit).toBeCloseTo(cash0 - 2.45, 10);

    // Closed: the history shows the fees on the close.
    const closed = await h.app.inject({
      method: "POST",
      url: `/api/v1/trading/execution/demo/market-close-orders/positions/${cfd}`,
      headers: { ...u.headers, "x-request-id": rid() },
      payload: { InstrumentID: AAPL },
    });
    expect(closed.statusCode, closed.body).toBe(200);
    const history = (await get("/api/v1/trading/info/trade/demo/history")) as { positionId: number; fees: number }[];
    expect(history.find((t) => t.positionId === cfd)!.fees).toBe(2.45);
    // A later pass (a restart) charges nothing more for the closed position.
    now = Date.parse("2026-12-01T12:00:00.000Z");
    const later = await chargeOvernightFees(h.deps);
    expect(later.charged).toBe(0);
  });
});
