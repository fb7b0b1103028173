import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGES, AMOUNTS } from "../../src/modules/copy-trading/copiers/copiers.schemas.js";
import { ageCategory, amountCategory } from "../../src/modules/copy-trading/copiers/read-my-copiers.js";
import { loadUpstream, operationKey } from "../contract/upstream.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";

const PI_COPIERS = "/api/v1/pi-data/copiers";
const upstream = loadUpstream();
const KEY = operationKey("GET", PI_COPIERS);

describe("copier categories", () => {
  it("bands the copied amount by its lower bounds, never down as the amount grows", () => {
    expect([9_999, 10_000, 49_999, 50_000, 99_999, 100_000, 500_000, 500_001].map(amountCategory)).toEqual([
      "<100",
      "100-500",
      "100-500",
      "500-1000",
      "500-1000",
      "1000-5000",
      "1000-5000",
      ">5000",
    ]);
    fc.assert(
      fc.property(fc.nat(10_000_000_00), fc.nat(10_000_000_00), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        return AMOUNTS.indexOf(amountCategory(lo)) <= AMOUNTS.indexOf(amountCategory(hi));
      }),
    );
  });

  it("counts whole years to the birthday, and says nothing without a birth date", () => {
    const now = new Date("2026-11-24T12:00:00Z");
    expect(ageCategory("2008-11-24", now)).toBe("18-29");
    expect(ageCategory("2008-11-25", now)).toBe("Under 18");
    expect(ageCategory("1966-11-24", now)).toBe("60+");
    expect(ageCategory("1966-11-25", now)).toBe("45-59");
    expect(ageCategory("", now)).toBeUndefined();
    fc.assert(
      fc.property(
        fc.date({ min: new Date("1900-01-01"), max: new Date("2026-11-24"), noInvalidDate: true }),
        fc.integer({ min: 1, max: 40_000 }),
        (born, laterDays) => {
          const iso = born.toISOString().slice(0, 10);
          const later = new Date(now.getTime() + laterDays * 86_400_000);
          return AGES.indexOf(ageCategory(iso, now)!) <= AGES.indexOf(ageCategory(iso, later)!);
        },
      ),
    );
  });
});

describe.each(engines())("GET /api/v1/pi-data/copiers on %s", (engine) => {
  let h: Harness;
  let leader: TestUser;
  const get = async (as: TestUser) => {
    const res = await h.app.inject({
      method: "GET",
      url: PI_COPIERS,
      headers: { ...as.headers, "x-request-id": randomUUID() },
    });
    return res;
  };

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
    leader = await h.user(["pi-data:read", "trade.demo:write"]);
  });
  afterAll(async () => h?.close());

  it("answers an empty list in upstream's shape to someone nobody copies", async () => {
    const res = await get(leader);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ copiers: [] });
    expect(upstream.problems(KEY, 200, res.body)).toEqual([]);
  });

  it("describes each copy of the caller in upstream's categories, never who copies", async () => {
    const told = await h.user(["trade.demo:write"]);
    const silent = await h.user(["trade.demo:write"]);
    await h.deps.db.kysely
      .updateTable("users")
      .set({ gender: 2, dateOfBirth: "1990-03-01", countryCode: 276 })
      .where("id", "=", told.user.id)
      .execute();
    for (const [copier, amount] of [
      [told, 1500],
      [silent, 300],
    ] as const) {
      const res = await h.app.inject({
        method: "POST",
        url: "/api/v1/copy-trading/copies",
        headers: { ...copier.headers, "x-request-id": randomUUID() },
        payload: { username: leader.user.username, amount },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const res = await get(leader);
    expect(res.statusCode, res.body).toBe(200);
    expect(upstream.problems(KEY, 200, res.body)).toEqual([]);
    const tiers = h.config.clubs.tiers.map((t) => t.name);
    const [first, second] = res.json().copiers;
    expect(first).toMatchObject({
      Gender: "F",
      Country: "Germany",
      AgeCategory: "30-44",
      CopyStartedAtCategory: "less than 1 day",
      AmountCategory: "1000-5000",
      CopyRealizedEquity_pnl: "0",
      AvailableCopyBalance: "1500",
    });
    expect(tiers).toContain(first.Club);
    expect(second).toEqual({
      Club: expect.any(String),
      CopyStartedAtCategory: "less than 1 day",
      AmountCategory: "100-500",
      CopyRealizedEquity_pnl: "0",
      AvailableCopyBalance: "300",
    });
    expect(res.body).not.toContain(told.user.username);
  });

  it("needs pi-data:read", async () => {
    const other = await h.user(["trade.demo:write"]);
    expect((await get(other)).statusCode).toBe(403);
  });
});
