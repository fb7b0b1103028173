import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLUB_TIERS, type ClubProgramme, DEFAULT_CLUB_PROGRAMME } from "../../src/config/clubs.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { type Membership, nextStanding, rankOf, tierFor } from "../../src/modules/clubs/club-tiers.js";

const DAY = 86_400_000;
const P = DEFAULT_CLUB_PROGRAMME;
const tiers = P.tiers.map((t) => t.name);

describe("club tiers (property)", () => {
  it("tierFor puts every amount in the one band that holds it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (equity) => {
        const tier = P.tiers.find((t) => t.name === tierFor(P, equity))!;
        expect(equity).toBeGreaterThanOrEqual(tier.minRealizedEquity);
        if (tier.maxRealizedEquity !== null) expect(equity).toBeLessThan(tier.maxRealizedEquity);
      }),
    );
  });

  const membership = fc.record({
    tier: fc.constantFrom(...tiers),
    belowSince: fc.option(fc.integer({ min: 0, max: 60 * DAY }).map((ms) => new Date(1e12 - ms).toISOString())),
  }) as fc.Arbitrary<Membership>;

  it("up at once, never down before the grace ends, down to the earned tier once it has", () => {
    fc.assert(
      fc.property(
        fc.option(membership, { nil: undefined }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (previous, equity) => {
          const now = new Date(1e12);
          const earned = tierFor(P, equity);
          const s = nextStanding(P, previous, equity, now);
          // never below what the equity earns
          expect(rankOf(P, s.tier)).toBeGreaterThanOrEqual(rankOf(P, earned));
          if (!previous || rankOf(P, earned) >= rankOf(P, previous.tier)) {
            expect(s).toEqual({ tier: earned, belowSince: null, isAtRisk: false, daysUntilDowngrade: null });
            return;
          }
          const since = Date.parse(previous.belowSince ?? now.toISOString());
          const graceOver = now.getTime() >= since + P.downgradeGraceDays * DAY;
          expect(s.tier).toBe(graceOver ? earned : previous.tier);
          expect(s.isAtRisk).toBe(!graceOver);
          if (s.isAtRisk) {
            expect(s.daysUntilDowngrade).toBeGreaterThanOrEqual(1);
            expect(s.daysUntilDowngrade).toBeLessThanOrEqual(P.downgradeGraceDays);
            expect(s.belowSince).toBe(previous.belowSince ?? now.toISOString());
          }
        },
      ),
    );
  });

  it("a tier the programme no longer has is replaced by the earned one at once", () => {
    const two: ClubProgramme = {
      ...P,
      tiers: [
        { name: "Bronze", minRealizedEquity: 0, maxRealizedEquity: 1000 },
        { name: "Gold", minRealizedEquity: 1000, maxRealizedEquity: null },
      ],
    };
    expect(nextStanding(two, { tier: "Diamond", belowSince: null }, 10, new Date()).tier).toBe("Bronze");
    expect(CLUB_TIERS).toContain("Internal");
  });
});

describe("CLUBS_FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-clubs-config-"));
  const load = (content: string) => {
    const file = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, content);
    return () => loadConfig({ CLUBS_FILE: file });
  };
  const problem = (content: string) => {
    try {
      load(content)();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems.join("\n");
    }
    throw new Error("expected a ConfigError");
  };

  it("replaces the default programme", () => {
    const custom = { ...P, downgradeGraceDays: 7 };
    expect(load(JSON.stringify(custom))().clubs.downgradeGraceDays).toBe(7);
    expect(loadConfig({}).clubs).toBe(DEFAULT_CLUB_PROGRAMME);
  });

  it("refuses a missing file, bad JSON, a wrong shape and tiers that do not tile", () => {
    expect(() => loadConfig({ CLUBS_FILE: join(dir, "missing.json") })).toThrow(
      /CLUBS_FILE ".*missing.json" cannot be read/,
    );
    expect(problem("{ not json")).toMatch(/is not JSON/);
    expect(problem(JSON.stringify({ ...P, downgradeGraceDays: -1 }))).toMatch(/\/downgradeGraceDays/);
    const gap = [
      { name: "Bronze", minRealizedEquity: 0, maxRealizedEquity: 5000 },
      { name: "Silver", minRealizedEquity: 6000, maxRealizedEquity: null },
    ];
    expect(problem(JSON.stringify({ ...P, tiers: gap }))).toMatch(/Bronze must end where Silver starts/);
    const open = [{ name: "Bronze", minRealizedEquity: 0, maxRealizedEquity: 5000 }];
    expect(problem(JSON.stringify({ ...P, tiers: open }))).toMatch(/must have maxRealizedEquity null/);
    const upside = [
      { name: "Gold", minRealizedEquity: 0, maxRealizedEquity: 5000 },
      { name: "Silver", minRealizedEquity: 5000, maxRealizedEquity: null },
    ];
    expect(problem(JSON.stringify({ ...P, tiers: upside }))).toMatch(/lowest \(Bronze\) to the highest/);
    const staff = [{ name: "Internal", minRealizedEquity: 0, maxRealizedEquity: null }];
    expect(problem(JSON.stringify({ ...P, tiers: staff }))).toMatch(/Internal is not a tier/);
  });
});
