import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchQuery, SearchSort } from "../../src/modules/people/people.schemas.js";
import { SORT_COLUMNS, searchTotal } from "../../src/modules/people/search/people-search.repository.js";
import { searchPage } from "../../src/modules/people/search/search-page.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const PERIOD = "OneYearAgo";
const NOW = new Date("2026-11-24T12:00:00.000Z");
const REGISTERED = ["2026-01-05T00:00:00.000Z", "2026-06-01T00:00:00.000Z", "2026-11-01T00:00:00.000Z"];
const SORTS = Object.keys(SORT_COLUMNS) as SearchSort[];

interface Stats {
  gain: number;
  dailyGain: number;
  weekGain: number;
  riskScore: number;
  maxDailyRisk: number;
  maxMonthlyRisk: number;
  copiers: number;
  profitableMonthsPct: number;
  registeredAt: string;
  listed: number;
  optOut: number;
  countryCode: number;
  holds: number | undefined;
}

// Few values per column, so most of the order is ties (by gcid ascending).
const few = (...xs: number[]) => fc.constantFrom(...xs);
const stats: fc.Arbitrary<Stats> = fc.record({
  gain: few(-2.5, 0, 0, 1.25, 7),
  dailyGain: few(0, 0, 0, 0.5),
  weekGain: few(-1, 0, 3.5),
  riskScore: few(1, 2, 2, 6),
  maxDailyRisk: few(1, 1, 4, 9),
  maxMonthlyRisk: few(2, 2, 5),
  copiers: few(0, 0, 0, 1, 3),
  profitableMonthsPct: few(0, 50, 100),
  registeredAt: fc.constantFrom(...REGISTERED),
  listed: few(1, 1, 1, 0),
  optOut: few(0, 0, 1),
  countryCode: few(7, 42),
  holds: fc.option(few(10, 60, 100), { nil: undefined }),
});

const query: fc.Arbitrary<SearchQuery> = fc.record(
  {
    period: fc.constant(PERIOD),
    page: fc.integer({ min: 1, max: 4 }),
    pageSize: fc.integer({ min: 1, max: 7 }),
    sort: fc.constantFrom(...SORTS.flatMap((s) => [s, `-${s}`])),
    gainMin: few(0, 1),
    maxDailyRiskScoreMax: few(1, 4),
    maxMonthlyRiskScoreMin: few(2, 5),
    weeksSinceRegistrationMin: few(1, 20),
    optIn: fc.boolean(),
    countryId: few(42),
    instrumentId: few(1001, -1001),
    instrumentPctMin: few(50),
  },
  { requiredKeys: ["period", "page", "pageSize"] },
);

/** The page and total by the rules, on rows in memory: the reference the store's queries must match. */
function reference(rows: (Stats & { gcid: number; name: string })[], q: SearchQuery) {
  const registeredBy =
    q.weeksSinceRegistrationMin === undefined
      ? undefined
      : new Date(NOW.getTime() - q.weeksSinceRegistrationMin * 7 * 86_400_000).toISOString();
  const held = q.instrumentId !== undefined && q.instrumentId > 0;
  const kept = rows.filter(
    (r) =>
      r.listed === 1 &&
      (q.gainMin === undefined || r.gain >= q.gainMin) &&
      (q.maxDailyRiskScoreMax === undefined || r.maxDailyRisk <= q.maxDailyRiskScoreMax) &&
      (q.maxMonthlyRiskScoreMin === undefined || r.maxMonthlyRisk >= q.maxMonthlyRiskScoreMin) &&
      (registeredBy === undefined || r.registeredAt <= registeredBy) &&
      (q.optIn === undefined || r.optOut === (q.optIn ? 0 : 1)) &&
      (q.countryId === undefined || r.countryCode === q.countryId) &&
      (q.instrumentId === undefined ||
        (held ? r.holds !== undefined && r.holds >= (q.instrumentPctMin ?? 0) : r.holds === undefined)),
  );
  const sort = q.sort ?? "-gain";
  const desc = sort.startsWith("-");
  const field = (desc ? sort.slice(1) : sort) as SearchSort;
  const column = SORT_COLUMNS[field];
  const key = (r: Stats & { name: string }) =>
    column === "usernameLower" ? r.name : (r as unknown as Record<string, number | string>)[column]!;
  const down = field === "weeksSinceRegistration" ? !desc : desc;
  const ordered = [...kept].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    if (x !== y) return (x < y ? -1 : 1) * (down ? -1 : 1);
    return a.gcid - b.gcid;
  });
  const from = (q.page - 1) * q.pageSize;
  return { total: kept.length, gcids: ordered.slice(from, from + q.pageSize).map((r) => r.gcid) };
}

/** Decision 0188: every sort both ways (the ascending walk by value included) against the reference. */
describe.each(engines())("people search's order and total against a reference on %s", (engine) => {
  let h: Harness;
  let users: { id: string; gcid: number }[];

  beforeAll(async () => {
    h = await startHarness(engine, { env: { MARKET_TICK_MS: "0" } });
    users = [];
    for (let i = 0; i < 18; i++) users.push((await h.user(["user-info:read"])).user);
  });
  afterAll(async () => h.close());

  it("pages and totals match the rules for random rows full of ties", async () => {
    const db = h.deps.db.kysely;
    await fc.assert(
      fc.asyncProperty(fc.array(stats, { minLength: users.length, maxLength: users.length }), query, async (all, q) => {
        const rows = all.map((s, i) => ({ ...s, gcid: users[i]!.gcid, name: `n${String(i).padStart(3, "0")}` }));
        await db.deleteFrom("peopleHoldings").execute();
        await db.deleteFrom("peopleStats").where("period", "=", PERIOD).execute();
        await db
          .insertInto("peopleStats")
          .values(
            rows.map(({ holds: _, name, ...r }, i) => ({
              ...r,
              userId: users[i]!.id,
              period: PERIOD,
              usernameLower: name,
              piLevel: 0,
              updatedAt: NOW.toISOString(),
            })),
          )
          .execute();
        const holders = rows.flatMap((r, i) =>
          r.holds === undefined ? [] : [{ userId: users[i]!.id, instrumentId: 1001, pct: r.holds }],
        );
        if (holders.length > 0) await db.insertInto("peopleHoldings").values(holders).execute();
        const want = reference(rows, q);
        const total = await searchTotal(db, q, 0, [], NOW).executeTakeFirst();
        // The page as made for a total that says many (the sort's index walked, holdings probed),
        // few (the filters' indexes, then sorted) and unknown: the same rows.
        const page = await searchPage(db, q, 0, [], NOW);
        expect(await searchPage(db, q, 0, [], NOW, Number.MAX_SAFE_INTEGER)).toEqual(page);
        expect(await searchPage(db, q, 0, [], NOW, 0)).toEqual(page);
        expect({ total: Number(total?.n), gcids: page.map((r) => Number(r.gcid)) }).toEqual(want);
      }),
      { numRuns: 150 },
    );
  });
});
