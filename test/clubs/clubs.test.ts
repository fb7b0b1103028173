import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CLUB_PROGRAMME } from "../../src/config/clubs.js";
import type { Clock } from "../../src/core/clock.js";
import { ClubDashboard } from "../../src/modules/clubs/clubs.schemas.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const DAY = 86_400_000;
const AAPL = 1001;
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const closeUrl = (positionId: number) => `/api/v1/trading/execution/demo/market-close-orders/positions/${positionId}`;

describe.each(engines())("the club dashboard on %s", (engine) => {
  let h: Harness;
  let now = Date.parse("2026-11-23T12:00:00Z");
  const clock: Clock = { now: () => new Date(now) };
  const dashboard = async (u: TestUser) => {
    const res = await h.app.inject({
      method: "GET",
      url: "/api/v1/clubs",
      headers: { ...u.headers, "x-request-id": rid() },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as ClubDashboard;
    expectSchema(ClubDashboard, body);
    return body;
  };

  describe("with the default programme and a 100,000 USD demo account", () => {
    beforeAll(async () => {
      h = await startHarness(engine, { clock, env: { MARKET_TICK_MS: "0" } });
    });
    afterAll(async () => h.close());

    it("ranks the caller by realized equity and shows what the tier offers", async () => {
      const body = await dashboard(await h.user(["club:read"]));
      expect(body.clubs.map((c) => [c.name, c.minRealizedEquity, c.maxRealizedEquity, c.rank])).toEqual([
        ["Bronze", 0, 5000, 1],
        ["Silver", 5000, 10000, 2],
        ["Gold", 10000, 25000, 3],
        ["Platinum", 25000, 50000, 4],
        ["PlatinumPlus", 50000, 250000, 5],
        ["Diamond", 250000, null, 6],
      ]);
      expect(body.currentClub).toBe("PlatinumPlus");
      expect(body.downgradeRisk).toEqual({ isAtRisk: false, daysUntilDowngrade: null });
      expect(body.offers.currentPlayerLevelAvailableOffers.map((o) => [o.id, o.status])).toEqual([
        ["1", "Available"],
        ["2", "Available"],
        ["3", "Available"],
        ["4", "Available"],
      ]);
      expect(body.offers.nextPlayerLevelAvailableOffers).toEqual([
        expect.objectContaining({ id: "5", minimumClubLevel: "Diamond", status: "Pending" }),
      ]);
      expect(body.offers.staticEligibleOffers).toEqual([expect.objectContaining({ id: "80", status: "Available" })]);
      expect(body.contacts.manager).toMatchObject({ email: DEFAULT_CLUB_PROGRAMME.manager!.email, avatars: [] });
    });

    it("splits the webinars at the sandbox's clock: a join link before, a recording after", async () => {
      const u = await h.user(["club:read"]);
      const before = await dashboard(u);
      expect(before.webinars.upcomingWebinars.map((w) => [w.id, w.recordUrl])).toEqual([[1002, null]]);
      expect(before.webinars.previousWebinars.map((w) => [w.id, w.joinUrl])).toEqual([[1001, null]]);
      const saved = now;
      now = Date.parse("2027-07-01T00:00:00Z");
      try {
        const after = await dashboard(u);
        expect(after.webinars.upcomingWebinars).toEqual([]);
        expect(after.webinars.previousWebinars.map((w) => w.id)).toEqual([1002, 1001]);
        expect(after.webinars.previousWebinars[0]!.joinUrl).toBeNull();
      } finally {
        now = saved;
      }
    });
  });

  describe("with a programme from CLUBS_FILE whose Silver starts at the starting balance", () => {
    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), "sta-clubs-"));
      const file = join(dir, "clubs.json");
      writeFileSync(
        file,
        JSON.stringify({
          ...DEFAULT_CLUB_PROGRAMME,
          tiers: [
            { name: "Bronze", minRealizedEquity: 0, maxRealizedEquity: 10_000 },
            { name: "Silver", minRealizedEquity: 10_000, maxRealizedEquity: null },
          ],
          manager: { ...DEFAULT_CLUB_PROGRAMME.manager, fromTier: "Silver" },
          offers: DEFAULT_CLUB_PROGRAMME.offers.filter((o) => o.minimumClubLevel === "Silver"),
        }),
      );
      h = await startHarness(engine, {
        clock,
        env: { CLUBS_FILE: file, DEMO_BALANCE: "10000", MARKET_TICK_MS: "0" },
      });
    });
    afterAll(async () => h.close());

    it("keeps the tier through the grace after a loss, at risk, then downgrades", async () => {
      const u = await h.user(["club:read", "trade.demo:write"]);
      expect((await dashboard(u)).currentClub).toBe("Silver");

      // Opening moves cash into a position: realized equity is unchanged.
      const open = await h.app.inject({
        method: "POST",
        url: BY_AMOUNT,
        headers: { ...u.headers, "x-request-id": rid() },
        payload: { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 1000 },
      });
      expect(open.statusCode, open.body).toBe(200);
      expect((await dashboard(u)).downgradeRisk.isAtRisk).toBe(false);

      // Closing at once loses the spread: equity falls under Silver's 10,000.
      const close = await h.app.inject({
        method: "POST",
        url: closeUrl(open.json().orderForOpen.positionID),
        headers: { ...u.headers, "x-request-id": rid() },
        payload: { InstrumentId: AAPL },
      });
      expect(close.statusCode, close.body).toBe(200);
      const atRisk = await dashboard(u);
      expect(atRisk.currentClub).toBe("Silver");
      expect(atRisk.downgradeRisk).toEqual({ isAtRisk: true, daysUntilDowngrade: 30 });
      expect(atRisk.contacts.manager).not.toBeNull();

      now += 29 * DAY + 1;
      expect((await dashboard(u)).downgradeRisk).toEqual({ isAtRisk: true, daysUntilDowngrade: 1 });

      now += DAY;
      const after = await dashboard(u);
      expect(after.currentClub).toBe("Bronze");
      expect(after.downgradeRisk).toEqual({ isAtRisk: false, daysUntilDowngrade: null });
      expect(after.contacts.manager).toBeNull();
      expect(after.offers.currentPlayerLevelAvailableOffers).toEqual([]);
      expect(after.offers.nextPlayerLevelAvailableOffers.map((o) => o.id)).toEqual(["1"]);
      expect(after.offers.staticEligibleOffers[0]!.status).toBe("Pending");
    });
  });
});
