import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Deps } from "../../src/modules/context.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { compound } from "../../src/modules/people/history/returns.js";
import { takeSnapshots } from "../../src/modules/people/history/take-snapshots.js";
import {
  AssetsHistory,
  DailyGainResult,
  ExposureHistory,
  GainHistory,
  GainResult,
  LivePortfolio,
  PeopleResult,
  SearchResult,
  TradeInfo,
} from "../../src/modules/people/people.schemas.js";
import { copyRefusal } from "../../src/modules/people/privacy/privacy.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const AAPL = 1001;
const OPEN = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const INFO = "/api/v1/user-info/people";
const STATS = "/api/v2/portfolios";
/** Five closes across a month end, and the mid price AAPL ends each day at (relative to its start). */
const DAYS = ["2026-10-29", "2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02"];
const MOVES = [1, 1.03, 0.98, 1.01, 1.05];

const atEndOf = (day: string): Deps["clock"] => ({ now: () => new Date(`${day}T22:00:00.000Z`) });

describe.each(engines())("people and performance on %s", (engine) => {
  let h: Harness;
  let trader: TestUser;
  let viewer: TestUser;
  /** The trader's equity at each day's close, as the trading module reports it. */
  const equities: number[] = [];
  let startMid: number;

  const get = (u: TestUser, url: string) =>
    h.app.inject({ method: "GET", url, headers: { ...u.headers, "x-request-id": randomUUID() } });
  const put = (u: TestUser, url: string, payload: object) =>
    h.app.inject({ method: "PUT", url, headers: { ...u.headers, "x-request-id": randomUUID() }, payload });
  const expectedReturns = () =>
    equities.map((e, i) => e / (i === 0 ? h.config.demo.startingBalanceCents / 100 : equities[i - 1]!) - 1);

  beforeAll(async () => {
    h = await startHarness(engine, { env: { MARKET_TICK_MS: "0" } });
    trader = await h.user(["user-info:read", "user-info:write", "trade.demo:write", "trade.demo:read"]);
    viewer = await h.user(["user-info:read"]);
    startMid = (await currentQuotes(h.deps, [AAPL])).get(AAPL)!.mid;
    const open = await h.app.inject({
      method: "POST",
      url: OPEN,
      headers: { ...trader.headers, "x-request-id": randomUUID() },
      payload: { InstrumentID: AAPL, IsBuy: true, Leverage: 2, Amount: 20_000 },
    });
    expect(open.statusCode, open.body).toBe(200);
    for (const [i, day] of DAYS.entries()) {
      h.deps.market.useSource(new RecordedSource({ [AAPL]: [startMid * MOVES[i]!] }, h.deps.market.steps));
      await h.deps.market.tick();
      const report = await takeSnapshots({ ...h.deps, clock: atEndOf(day) });
      expect(report.day).toBe(day);
      const pnl = await get(trader, "/api/v1/trading/info/demo/pnl");
      equities.push(pnl.json().clientPortfolio.equity);
    }
  });
  afterAll(async () => h.close());

  it("records each day's time-weighted return: the daily gains are the trading module's equity changes", async () => {
    const res = await get(
      viewer,
      `${INFO}/${trader.user.username}/daily-gain?minDate=${DAYS[0]}&maxDate=${DAYS[4]}&type=Daily`,
    );
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(DailyGainResult, res.json());
    const days = res.json() as { timestamp: string; gain: number }[];
    expect(days.map((d) => d.timestamp)).toEqual(DAYS.map((d) => `${d}T00:00:00Z`));
    const expected = expectedReturns();
    for (const [i, d] of days.entries()) expect(d.gain).toBeCloseTo(expected[i]! * 100, 3);
    // The price moved, so the account did.
    expect(Math.abs(days[1]!.gain)).toBeGreaterThan(0.5);
    const period = await get(
      viewer,
      `${INFO}/${trader.user.username}/daily-gain?minDate=${DAYS[0]}&maxDate=${DAYS[4]}&type=Period`,
    );
    expect(period.json().gain).toBeCloseTo(compound(expected) * 100, 3);
  });

  it("the daily gains of a month compound to its monthly gain (v1 percent and v2 fractions)", async () => {
    const res = await get(viewer, `${INFO}/${trader.user.username}/gain`);
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(GainResult, res.json());
    const { monthly, yearly } = res.json() as {
      monthly: { timestamp: string; gain: number }[];
      yearly: { gain: number }[];
    };
    expect(monthly.map((m) => m.timestamp)).toEqual(["2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z"]);
    const daily = await get(
      viewer,
      `${INFO}/${trader.user.username}/daily-gain?minDate=2026-10-01&maxDate=2026-10-31&type=Daily`,
    );
    const octDays = (daily.json() as { gain: number }[]).map((d) => d.gain / 100);
    expect(octDays).toHaveLength(3);
    expect(compound(octDays) * 100).toBeCloseTo(monthly[0]!.gain, 3);
    expect(yearly[0]!.gain).toBeCloseTo(compound(expectedReturns()) * 100, 3);

    const v2daily = await get(viewer, `${STATS}/${trader.user.username}/gain/daily`);
    const v2monthly = await get(viewer, `${STATS}/${trader.user.username}/gain/monthly`);
    expect(v2daily.statusCode, v2daily.body).toBe(200);
    expectSchema(GainHistory, v2daily.json());
    expectSchema(GainHistory, v2monthly.json());
    expect(v2daily.headers["cache-control"]).toBe("public, max-age=3600");
    const dg = v2daily.json().gains as { date: string; gain: number }[];
    const mg = v2monthly.json().gains as { date: string; gain: number }[];
    expect(dg.map((d) => d.date)).toEqual(DAYS);
    expect(mg.map((m) => m.date)).toEqual(["2026-10-01", "2026-11-01"]);
    expect(compound(dg.slice(0, 3).map((d) => d.gain))).toBeCloseTo(mg[0]!.gain, 8);
    expect(compound(dg.slice(3).map((d) => d.gain))).toBeCloseTo(mg[1]!.gain, 8);
    expect(v2monthly.json().totalGain).toBeCloseTo(v2daily.json().totalGain, 8);
  });

  it("gain series scope by dates and count; all three or reversed dates are upstream's 400", async () => {
    const last2 = await get(viewer, `${STATS}/${trader.user.username}/gain/daily?count=2`);
    expect(last2.json().gains.map((g: { date: string }) => g.date)).toEqual(DAYS.slice(3));
    const first2 = await get(viewer, `${STATS}/${trader.user.username}/gain/daily?minDate=${DAYS[1]}&count=2`);
    expect(first2.json().gains.map((g: { date: string }) => g.date)).toEqual(DAYS.slice(1, 3));
    const ranged = await get(
      viewer,
      `${STATS}/${trader.user.username}/gain/daily?minDate=${DAYS[1]}&maxDate=${DAYS[2]}`,
    );
    expect(ranged.json().gains).toHaveLength(2);
    const none = await get(
      viewer,
      `${STATS}/${trader.user.username}/gain/yearly?minDate=2020-01-01&maxDate=2020-12-31`,
    );
    expect(none.json()).toMatchObject({ gains: [], totalGain: null });
    const all3 = await get(
      viewer,
      `${STATS}/${trader.user.username}/gain/daily?minDate=${DAYS[0]}&maxDate=${DAYS[1]}&count=1`,
    );
    expect(all3.statusCode).toBe(400);
    expect(all3.json()).toMatchObject({ success: false, error: { code: expect.any(String) } });
    const reversed = await get(
      viewer,
      `${STATS}/${trader.user.username}/gain/daily?minDate=${DAYS[2]}&maxDate=${DAYS[1]}`,
    );
    expect(reversed.statusCode).toBe(400);
    const unknown = await get(viewer, `${STATS}/nobody_here_${Date.now()}/gain/daily`);
    expect(unknown.statusCode).toBe(404);
  });

  it("assets and exposure history are fractions that add up, downsampled by count", async () => {
    const q = `minDate=${DAYS[0]}&maxDate=${DAYS[4]}`;
    const assets = await get(viewer, `${STATS}/${trader.user.username}/assets/history?${q}`);
    expect(assets.statusCode, assets.body).toBe(200);
    expectSchema(AssetsHistory, assets.json());
    expect(assets.headers["cache-control"]).toBe("public, max-age=3600");
    const results = assets.json().results as {
      date: string;
      cashPct: number;
      cashOfTotalEquityPct: number;
      assets: { instrumentId: number; symbol: string; investedPct: number; valuePct: number }[];
    }[];
    expect(results.map((r) => r.date)).toEqual(DAYS);
    for (const r of results) {
      expect(r.assets).toHaveLength(1);
      expect(r.assets[0]).toMatchObject({ instrumentId: AAPL, symbol: "AAPL" });
      expect(r.cashPct + r.assets[0]!.investedPct).toBeCloseTo(1, 6);
      expect(r.cashOfTotalEquityPct + r.assets[0]!.valuePct).toBeCloseTo(1, 6);
    }
    const exposure = await get(viewer, `${STATS}/${trader.user.username}/exposure/history?${q}&count=2`);
    expect(exposure.statusCode, exposure.body).toBe(200);
    expectSchema(ExposureHistory, exposure.json());
    const ex = exposure.json().results as {
      date: string;
      absExposurePct: number;
      exposureItems: { netExposurePct: number; absExposurePct: number }[];
    }[];
    expect(ex.map((r) => r.date)).toEqual([DAYS[2], DAYS[4]]);
    // A long at leverage 2: the notional is about twice the margin, net = abs for a long.
    expect(ex[0]!.exposureItems[0]!.netExposurePct).toBeCloseTo(ex[0]!.absExposurePct, 8);
    expect(ex[0]!.absExposurePct).toBeGreaterThan(0.3);
    const both = await get(viewer, `${STATS}/${trader.user.username}/exposure/history?${q}&period=CurrMonth`);
    expect(both.statusCode).toBe(400);
    const neither = await get(viewer, `${STATS}/${trader.user.username}/assets/history`);
    expect(neither.statusCode).toBe(400);
    const period = await get(viewer, `${STATS}/${trader.user.username}/assets/history?period=OneYearAgo`);
    expect(period.json().results).toHaveLength(5);
  });

  it("the live portfolio is percentages only, and they add up to the equity", async () => {
    const res = await get(viewer, `${INFO}/${trader.user.username}/portfolio/live`);
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(LivePortfolio, res.json());
    const body = res.json() as {
      unrealizedCreditPct: number;
      positions: { investmentPct: number; netProfit: number }[];
    };
    expect(body.positions).toHaveLength(1);
    expect(body.unrealizedCreditPct + body.positions[0]!.investmentPct).toBeCloseTo(100, 2);
    const keys = JSON.stringify(body);
    for (const amount of ["amount", "units", "equity", 'credit"', "cash"])
      expect(keys.toLowerCase()).not.toContain(amount);
  });

  it("tradeinfo reports the period's figures, trades once closed", async () => {
    const res = await get(viewer, `${INFO}/${trader.user.username}/tradeinfo?period=OneYearAgo`);
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(TradeInfo, res.json());
    expect(res.json()).toMatchObject({ userName: trader.user.username, trades: 0, riskScore: expect.any(Number) });
    expect(res.json().gain).toBeCloseTo(compound(expectedReturns()) * 100, 3);
    const bad = await get(viewer, `${INFO}/${trader.user.username}/tradeinfo?period=Forever`);
    expect(bad.statusCode).toBe(422);
  });

  it("people by usernames or cidList, with upstream's 400s and 404", async () => {
    const byName = await get(viewer, `${INFO}?usernames=${trader.user.username}`);
    expect(byName.statusCode, byName.body).toBe(200);
    expectSchema(PeopleResult, byName.json());
    const person = byName.json().users[0];
    expect(person).toMatchObject({ username: trader.user.username, gcid: trader.user.gcid, optOut: false });
    const byCid = await get(viewer, `${INFO}?cidList=${person.demoCID},${viewer.user.gcid}`);
    expect(
      byCid
        .json()
        .users.map((u: { username: string }) => u.username)
        .sort(),
    ).toEqual([trader.user.username, viewer.user.username].sort());
    expect((await get(viewer, INFO)).statusCode).toBe(400);
    expect((await get(viewer, `${INFO}?usernames=a&cidList=1`)).statusCode).toBe(400);
    const many = Array.from({ length: 51 }, (_, i) => `u${i}`).join(",");
    expect((await get(viewer, `${INFO}?usernames=${many}`)).statusCode).toBe(400);
    expect((await get(viewer, `${INFO}?usernames=${encodeURIComponent("bad name!")}`)).statusCode).toBe(400);
    const missing = await get(viewer, `${INFO}?usernames=${trader.user.username},nobody_${Date.now()}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ errorCode: "NotFound" });
  });

  it("search filters, sorts and pages over the last snapshot's figures", async () => {
    const s = (q: string) => get(viewer, `${INFO}/search?period=OneYearAgo&${q}`);
    const all = await s("pageSize=100");
    expect(all.statusCode, all.body).toBe(200);
    expectSchema(SearchResult, all.json());
    const me = (all.json().items as { userName: string; gain: number; maxDailyRiskScore: number }[]).find(
      (i) => i.userName === trader.user.username,
    )!;
    expect(me.gain).toBeCloseTo(compound(expectedReturns()) * 100, 3);
    // The viewer has no demo account, so no history: not listed.
    expect(all.json().items.some((i: { userName: string }) => i.userName === viewer.user.username)).toBe(false);
    const names = async (q: string) => ((await s(q)).json().items as { userName: string }[]).map((i) => i.userName);
    expect(await names(`gainMax=${Math.floor(me.gain) - 1}`)).not.toContain(trader.user.username);
    expect(await names(`gainMax=${Math.ceil(me.gain) + 1}`)).toContain(trader.user.username);
    expect(await names(`instrumentId=${AAPL}&instrumentPctMin=100`)).toContain(trader.user.username);
    expect(await names(`instrumentId=-${AAPL}`)).not.toContain(trader.user.username);
    expect(await names("popularInvestor=true")).not.toContain(trader.user.username);
    expect(
      await names(`maxDailyRiskScoreMin=${me.maxDailyRiskScore}&maxDailyRiskScoreMax=${me.maxDailyRiskScore}`),
    ).toContain(trader.user.username);
    expect(await names(`countryId=${trader.user.countryCode + 1}`)).not.toContain(trader.user.username);
    expect(await names("isTestAccount=true")).toEqual([]);
    const withPct = await s(`instrumentId=${AAPL}`);
    expect(withPct.json().items[0].instrumentPct).toBe(100);
    expect((await s("sort=-sideways")).statusCode).toBe(422);
    expect((await get(viewer, `${INFO}/search`)).statusCode).toBe(422);
  });

  it("search answers every sort in both directions, ties by customer id, pages agreeing with the whole list (decision 0165)", async () => {
    const fields = {
      gain: "gain",
      dailyGain: "dailyGain",
      thisWeekGain: "thisWeekGain",
      riskScore: "riskScore",
      maxDailyRiskScore: "maxDailyRiskScore",
      maxMonthlyRiskScore: "maxMonthlyRiskScore",
      copiers: "copiers",
      profitableMonthsPct: "profitableMonthsPct",
      weeksSinceRegistration: "weeksSinceRegistration",
      userName: "userName",
    } as const;
    for (const [sort, field] of Object.entries(fields)) {
      for (const desc of [false, true]) {
        const res = await get(viewer, `${INFO}/search?period=OneYearAgo&pageSize=100&sort=${desc ? "-" : ""}${sort}`);
        expect(res.statusCode, res.body).toBe(200);
        const { items, totalItems } = res.json() as { items: Record<string, unknown>[]; totalItems: number };
        expect(totalItems).toBe(items.length);
        expect(items.map((i) => i.userName)).toContain(trader.user.username);
        const key = (i: Record<string, unknown>) =>
          field === "userName" ? String(i.userName).toLowerCase() : Number(i[field]);
        for (let k = 1; k < items.length; k++) {
          const [a, b] = [key(items[k - 1]!), key(items[k]!)];
          // weeksSinceRegistration is whole weeks: ties there are ordered by registration time, not gcid.
          if (a === b && field !== "weeksSinceRegistration")
            expect(Number(items[k - 1]!.customerId)).toBeLessThan(Number(items[k]!.customerId));
          else expect(desc ? a >= b : a <= b).toBe(true);
        }
        const second = await get(
          viewer,
          `${INFO}/search?period=OneYearAgo&pageSize=1&page=2&sort=${desc ? "-" : ""}${sort}`,
        );
        expect(second.json().items.map((i: { userName: string }) => i.userName)).toEqual(
          items.slice(1, 2).map((i) => i.userName),
        );
      }
    }
  });

  it("privacy: an opted-out portfolio is 403 to others (no-store) and private to its owner; a private profile is 404", async () => {
    const optOut = await put(trader, "/api/v1/user-info/privacy", { portfolioOptOut: true });
    expect(optOut.statusCode, optOut.body).toBe(200);
    expect(optOut.json()).toEqual({ isPrivate: false, portfolioOptOut: true, copyBlocked: false });
    const refused = await get(viewer, `${STATS}/${trader.user.username}/gain/daily`);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers["cache-control"]).toBe("no-store");
    expect(refused.json()).toMatchObject({ success: false, error: { code: expect.any(String) } });
    expect((await get(viewer, `${INFO}/${trader.user.username}/portfolio/live`)).statusCode).toBe(403);
    const own = await get(trader, `${STATS}/${trader.user.username}/assets/history?period=OneYearAgo`);
    expect(own.statusCode).toBe(200);
    expect(own.headers["cache-control"]).toBe("private, max-age=3600");
    expect((await get(viewer, `${INFO}?usernames=${trader.user.username}`)).json().users[0].optOut).toBe(true);
    const optIn = await get(viewer, `${INFO}/search?period=OneYearAgo&optIn=false&pageSize=100`);
    expect(optIn.json().items.map((i: { userName: string }) => i.userName)).toContain(trader.user.username);

    await put(trader, "/api/v1/user-info/privacy", { portfolioOptOut: false, isPrivate: true });
    expect((await get(viewer, `${INFO}/${trader.user.username}/gain`)).statusCode).toBe(404);
    expect((await get(viewer, `${INFO}?usernames=${trader.user.username}`)).statusCode).toBe(404);
    expect((await get(viewer, `${STATS}/${trader.user.username}/gain/daily`)).statusCode).toBe(404);
    const hidden = await get(viewer, `${INFO}/search?period=OneYearAgo&pageSize=100`);
    expect(hidden.json().items.map((i: { userName: string }) => i.userName)).not.toContain(trader.user.username);
    const ownSearch = await get(trader, `${INFO}/search?period=OneYearAgo&pageSize=100`);
    expect(ownSearch.json().items.map((i: { userName: string }) => i.userName)).toContain(trader.user.username);
    expect((await get(trader, `${INFO}/${trader.user.username}/gain`)).statusCode).toBe(200);
    expect(await copyRefusal(h.deps, viewer.user.id, trader.user.id)).toMatchObject({ code: "private" });
    await put(trader, "/api/v1/user-info/privacy", { isPrivate: false, copyBlocked: true });
    expect(await copyRefusal(h.deps, viewer.user.id, trader.user.id)).toMatchObject({ code: "copyBlocked" });
    expect(await copyRefusal(h.deps, trader.user.id, trader.user.id)).toMatchObject({ code: "self" });
    await put(trader, "/api/v1/user-info/privacy", { copyBlocked: false });
    expect(await copyRefusal(h.deps, viewer.user.id, trader.user.id)).toBeNull();
    const read = await get(trader, "/api/v1/user-info/privacy");
    expect(read.json()).toEqual({ isPrivate: false, portfolioOptOut: false, copyBlocked: false });
  });

  it("blocks: neither side reads the other, and the blocked one cannot copy", async () => {
    const blocker = await h.user(["user-info:read", "feed:write"]);
    const block = await h.app.inject({
      method: "POST",
      url: `/api/v1/users/${trader.user.gcid}/blocks`,
      headers: { ...blocker.headers, "x-request-id": randomUUID() },
    });
    expect(block.statusCode, block.body).toBe(204);
    expect((await get(blocker, `${INFO}/${trader.user.username}/tradeinfo?period=CurrYear`)).statusCode).toBe(404);
    expect((await get(trader, `${INFO}?usernames=${blocker.user.username}`)).statusCode).toBe(404);
    const search = await get(blocker, `${INFO}/search?period=OneYearAgo&pageSize=100`);
    expect(search.json().items.map((i: { userName: string }) => i.userName)).not.toContain(trader.user.username);
    expect(await copyRefusal(h.deps, blocker.user.id, trader.user.id)).toMatchObject({ code: "blocked" });
  });
});
