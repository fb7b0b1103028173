import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays, compound, dayOf } from "../../src/modules/people/history/returns.js";
import { seedTradingHistory } from "../../src/modules/people/history/seed-history.js";
import { takeSnapshots } from "../../src/modules/people/history/take-snapshots.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";

const DAYS = 60;

describe.each(engines())("seeded history on %s (decision 0142)", (engine) => {
  let h: Harness;
  let viewer: TestUser;
  const steps: string[] = [];
  beforeAll(async () => {
    h = await startHarness(engine, { env: { MARKET_TICK_MS: "0", PEOPLE_SEED_HISTORY_DAYS: String(DAYS) } });
    await h.user(["user-info:read"], { username: "alice" });
    await h.user(["user-info:read"], { username: "bob" });
    viewer = await h.user(["user-info:read"]);
    expect(await seedTradingHistory(h.deps, (s) => steps.push(s))).toBe(2);
  });
  afterAll(async () => h.close());

  const get = (url: string) =>
    h.app.inject({ method: "GET", url, headers: { ...viewer.headers, "x-request-id": randomUUID() } });

  it("gives each seeded trader a daily close for every past day, with progress, once", async () => {
    expect(steps.at(-1)).toBe(`history: ${DAYS}/${DAYS} days of 2 traders`);
    const today = dayOf(h.deps.clock.now());
    const res = await get(
      `/api/v1/user-info/people/bob/daily-gain?minDate=${addDays(today, -DAYS)}&maxDate=${today}&type=Daily`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const days = res.json() as { timestamp: string; gain: number }[];
    expect(days).toHaveLength(DAYS);
    expect(days.at(-1)!.timestamp).toBe(`${addDays(today, -1)}T00:00:00Z`);
    expect(days.some((d) => Math.abs(d.gain) > 0.1)).toBe(true);
    expect(await seedTradingHistory(h.deps)).toBe(0);
  });

  it("is found by search, and its year compounds from its days", async () => {
    const search = await get("/api/v1/user-info/people/search?period=OneYearAgo&sort=-gain");
    const names = (search.json().items as { userName: string }[]).map((i) => i.userName);
    expect(names).toEqual(expect.arrayContaining(["alice", "bob"]));
    const gain = await get("/api/v1/user-info/people/alice/gain");
    const today = dayOf(h.deps.clock.now());
    const daily = await get(
      `/api/v1/user-info/people/alice/daily-gain?minDate=${addDays(today, -400)}&maxDate=${today}&type=Daily`,
    );
    const total = compound((daily.json() as { gain: number }[]).map((d) => d.gain / 100));
    const years = (gain.json().yearly as { gain: number }[]).map((y) => y.gain / 100);
    expect(compound(years)).toBeCloseTo(total, 4);
  });

  it("continues live: the account opens at the replayed equity with the plan's positions", async () => {
    const live = await get("/api/v1/user-info/people/bob/portfolio/live");
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json().positions.length).toBe(3);
    await takeSnapshots(h.deps);
    const today = dayOf(h.deps.clock.now());
    const res = await get(`/api/v1/user-info/people/bob/daily-gain?minDate=${today}&maxDate=${today}&type=Daily`);
    const [first] = res.json() as { gain: number }[];
    // Today's close against the last replayed one: a day's move, not a jump to another balance.
    expect(Math.abs(first!.gain)).toBeLessThan(10);
  });

  it("leaves the rebalancing closes as closed trades that tradeinfo counts and that sum to the realised result (decision 0166)", async () => {
    const info = await get("/api/v1/user-info/people/bob/tradeinfo?period=OneYearAgo");
    expect(info.statusCode, info.body).toBe(200);
    const body = info.json() as {
      trades: number;
      topTradedInstrumentId?: number;
      winRatio: number;
      activeWeeksPct: number;
    };
    // 60 days, a rebalance every 30: closes on day 30 and at the handover, 3 legs each.
    expect(body.trades).toBe(6);
    expect([1, 17, 18]).toContain(body.topTradedInstrumentId);
    expect(body.activeWeeksPct).toBeGreaterThan(0);
    const bob = await h.deps.db.kysely
      .selectFrom("users")
      .select("id")
      .where("usernameLower", "=", "bob")
      .executeTakeFirstOrThrow();
    const trades = await h.deps.db.kysely.selectFrom("demoTrades").selectAll().where("userId", "=", bob.id).execute();
    const account = await h.deps.db.kysely
      .selectFrom("demoAccounts")
      .selectAll()
      .where("userId", "=", bob.id)
      .executeTakeFirstOrThrow();
    const realised = trades.reduce((s, t) => s + Number(t.netProfitCents), 0);
    expect(realised).toBe(Number(account.realizedPnlCents));
    expect(body.winRatio).toBeCloseTo((trades.filter((t) => Number(t.netProfitCents) > 0).length / 6) * 100, 2);
    // Each trade's position and orders exist, closed, so trade history and lookups name real rows.
    for (const t of trades) {
      const position = await h.deps.db.kysely
        .selectFrom("demoPositions")
        .select(["status", "openRate"])
        .where("positionId", "=", t.positionId)
        .executeTakeFirstOrThrow();
      expect(position).toEqual({ status: "closed", openRate: t.openRate });
      expect(t.openDateTime < t.closeDateTime).toBe(true);
    }
  });
});
