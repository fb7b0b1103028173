import { describe, expect, it } from "vitest";
import { EXCHANGES } from "../../src/modules/market/catalog.js";
import { marketHours, rolloversBetween, zonedInstant } from "../../src/modules/market/hours/market-hours.js";
import { rateSnapshot } from "../../src/modules/realtime/rates.js";

const hours = marketHours("exchange");
const open = (exchange: keyof typeof EXCHANGES, iso: string) => hours.isOpen(EXCHANGES[exchange], new Date(iso));

describe("the exchange calendars", () => {
  it("opens US stocks 09:30-16:00 New York across daylight saving, closed on holidays, early on half days", () => {
    expect(open("nasdaq", "2026-07-01T13:29:00Z")).toBe(false); // 09:29 EDT
    expect(open("nasdaq", "2026-07-01T13:30:00Z")).toBe(true);
    expect(open("nyse", "2026-12-01T14:30:00Z")).toBe(true); // 09:30 EST
    expect(open("nyse", "2026-12-01T20:59:00Z")).toBe(true);
    expect(open("nyse", "2026-12-01T21:00:00Z")).toBe(false);
    expect(open("nasdaq", "2026-11-26T15:00:00Z")).toBe(false); // Thanksgiving
    expect(open("nasdaq", "2026-11-27T17:59:00Z")).toBe(true); // 12:59 on the half day
    expect(open("nasdaq", "2026-11-27T18:00:00Z")).toBe(false);
    expect(open("nasdaq", "2027-03-26T15:00:00Z")).toBe(false); // Good Friday 2027
    expect(open("nasdaq", "2026-11-21T15:00:00Z")).toBe(false); // Saturday
  });

  it("keeps London's and Frankfurt's hours and holidays", () => {
    expect(open("lse", "2026-12-28T10:00:00Z")).toBe(false); // Boxing Day substitute
    expect(open("lse", "2026-12-24T12:29:00Z")).toBe(true);
    expect(open("lse", "2026-12-24T12:30:00Z")).toBe(false);
    expect(open("lse", "2026-06-01T07:00:00Z")).toBe(true); // 08:00 BST
    expect(open("xetra", "2026-05-01T10:00:00Z")).toBe(false); // Labour Day
    expect(open("xetra", "2026-05-04T15:29:00Z")).toBe(true); // 17:29 CEST
    expect(open("xetra", "2026-05-04T15:30:00Z")).toBe(false);
  });

  it("runs FX from Sunday to Friday 17:00 New York, index CFDs with a daily break, crypto always", () => {
    expect(open("fx", "2026-11-22T21:59:00Z")).toBe(false); // Sunday 16:59 EST
    expect(open("fx", "2026-11-22T22:00:00Z")).toBe(true);
    expect(open("fx", "2026-11-27T21:59:00Z")).toBe(true); // Friday 16:59
    expect(open("fx", "2026-11-27T22:00:00Z")).toBe(false);
    expect(open("indexCfd", "2026-11-24T22:30:00Z")).toBe(false); // 17:30 EST: the daily break
    expect(open("indexCfd", "2026-11-24T23:00:00Z")).toBe(true);
    expect(open("fx", "2026-12-25T15:00:00Z")).toBe(false); // Christmas Day
    expect(open("crypto", "2026-12-25T15:00:00Z")).toBe(true);
    expect(marketHours("always").isOpen(EXCHANGES.nasdaq, new Date("2026-11-21T15:00:00Z"))).toBe(true);
  });

  it("rolls over daily at 17:00 New York, whatever the offset", () => {
    expect(zonedInstant("2026-07-01", 17 * 60, "America/New_York").toISOString()).toBe("2026-07-01T21:00:00.000Z");
    expect(zonedInstant("2026-12-01", 17 * 60, "America/New_York").toISOString()).toBe("2026-12-01T22:00:00.000Z");
    // Across the end of daylight saving (1 November 2026): one rollover per date.
    const r = rolloversBetween(new Date("2026-10-30T12:00:00Z"), new Date("2026-11-03T12:00:00Z"));
    expect(r.map((x) => [x.date, x.at.toISOString(), x.weekday])).toEqual([
      ["2026-10-30", "2026-10-30T21:00:00.000Z", 5],
      ["2026-10-31", "2026-10-31T21:00:00.000Z", 6],
      ["2026-11-01", "2026-11-01T22:00:00.000Z", 0],
      ["2026-11-02", "2026-11-02T22:00:00.000Z", 1],
    ]);
  });

  it("tells the real-time snapshot whether the market is open", () => {
    const quote = { instrumentId: 1001, bid: 1, ask: 1.1, mid: 1.05, date: "2026-11-21T15:00:00.000Z", priceRateId: 3 };
    expect(rateSnapshot(quote, 1, false)).toMatchObject({ IsMarketOpen: "false", IsExchangeOpen: "false" });
    expect(rateSnapshot(quote, 1)).toMatchObject({ IsMarketOpen: "true" });
  });
});
