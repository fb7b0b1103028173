/**
 * The trading calendar of the simulated market, as data: each exchange's time zone, weekly
 * session and, for the stock exchanges, the published holidays and early closes of 2026 and 2027.
 * Sources and rules: docs/decisions/0128-market-hours.md. Exchange keys are catalog.ts's EXCHANGES.
 */
import type { EXCHANGES } from "../catalog.js";

export type ExchangeName = keyof typeof EXCHANGES;

/** Minutes after local midnight. */
export type Minutes = number;

export interface StockSession {
  kind: "stock";
  timeZone: string;
  open: Minutes;
  close: Minutes;
  /** Local dates (YYYY-MM-DD) with no session. */
  holidays: ReadonlySet<string>;
  /** Local dates whose session ends early, and when. */
  earlyCloses: ReadonlyMap<string, Minutes>;
}

/**
 * A market that trades around the clock from a weekly open to a weekly close (local time in
 * `timeZone`, Sunday `weekOpen` to Friday `weekClose`), with an optional daily break.
 */
export interface WeeklySession {
  kind: "weekly";
  timeZone: string;
  weekOpen: Minutes;
  weekClose: Minutes;
  dailyBreak?: { from: Minutes; to: Minutes };
  /** Local dates with no trading at all (Christmas Day, New Year's Day). */
  holidays: ReadonlySet<string>;
}

export type Session = StockSession | WeeklySession | { kind: "always" };

const hm = (h: number, m = 0): Minutes => h * 60 + m;

const NEW_YORK = "America/New_York";

/** Both US exchanges follow the same calendar (NYSE Group and Nasdaq publish the same days). */
const US_HOLIDAYS = new Set([
  // 2026
  "2026-01-01",
  "2026-01-19",
  "2026-02-16",
  "2026-04-03",
  "2026-05-25",
  "2026-06-19",
  "2026-07-03",
  "2026-09-07",
  "2026-11-26",
  "2026-12-25",
  // 2027
  "2027-01-01",
  "2027-01-18",
  "2027-02-15",
  "2027-03-26",
  "2027-05-31",
  "2027-06-18",
  "2027-07-05",
  "2027-09-06",
  "2027-11-25",
  "2027-12-24",
]);
const US_EARLY_CLOSES = new Map<string, Minutes>([
  ["2026-11-27", hm(13)],
  ["2026-12-24", hm(13)],
  ["2027-11-26", hm(13)],
]);

const LSE_HOLIDAYS = new Set([
  "2026-01-01",
  "2026-04-03",
  "2026-04-06",
  "2026-05-04",
  "2026-05-25",
  "2026-08-31",
  "2026-12-25",
  "2026-12-28",
  "2027-01-01",
  "2027-03-26",
  "2027-03-29",
  "2027-05-03",
  "2027-05-31",
  "2027-08-30",
  "2027-12-27",
  "2027-12-28",
]);
const LSE_EARLY_CLOSES = new Map<string, Minutes>([
  ["2026-12-24", hm(12, 30)],
  ["2026-12-31", hm(12, 30)],
  ["2027-12-24", hm(12, 30)],
  ["2027-12-31", hm(12, 30)],
]);

const XETRA_HOLIDAYS = new Set([
  "2026-01-01",
  "2026-04-03",
  "2026-04-06",
  "2026-05-01",
  "2026-12-24",
  "2026-12-25",
  "2026-12-31",
  "2027-01-01",
  "2027-03-26",
  "2027-03-29",
  "2027-12-24",
  "2027-12-31",
]);

/** The over-the-counter markets stop on Christmas Day and New Year's Day (New York dates). */
const OTC_HOLIDAYS = new Set(["2026-01-01", "2026-12-25", "2027-01-01", "2027-12-25"]);

export const SESSIONS: Record<ExchangeName, Session> = {
  // Spot FX: Sunday 17:00 to Friday 17:00 New York time, around the clock in between.
  fx: { kind: "weekly", timeZone: NEW_YORK, weekOpen: hm(17), weekClose: hm(17), holidays: OTC_HOLIDAYS },
  // Commodity and index CFDs follow their CME Globex futures: Sunday 18:00 to Friday 17:00
  // New York time, with a daily break from 17:00 to 18:00.
  commodity: {
    kind: "weekly",
    timeZone: NEW_YORK,
    weekOpen: hm(18),
    weekClose: hm(17),
    dailyBreak: { from: hm(17), to: hm(18) },
    holidays: OTC_HOLIDAYS,
  },
  indexCfd: {
    kind: "weekly",
    timeZone: NEW_YORK,
    weekOpen: hm(18),
    weekClose: hm(17),
    dailyBreak: { from: hm(17), to: hm(18) },
    holidays: OTC_HOLIDAYS,
  },
  nasdaq: {
    kind: "stock",
    timeZone: NEW_YORK,
    open: hm(9, 30),
    close: hm(16),
    holidays: US_HOLIDAYS,
    earlyCloses: US_EARLY_CLOSES,
  },
  nyse: {
    kind: "stock",
    timeZone: NEW_YORK,
    open: hm(9, 30),
    close: hm(16),
    holidays: US_HOLIDAYS,
    earlyCloses: US_EARLY_CLOSES,
  },
  xetra: {
    kind: "stock",
    timeZone: "Europe/Berlin",
    open: hm(9),
    close: hm(17, 30),
    holidays: XETRA_HOLIDAYS,
    earlyCloses: new Map(),
  },
  lse: {
    kind: "stock",
    timeZone: "Europe/London",
    open: hm(8),
    close: hm(16, 30),
    holidays: LSE_HOLIDAYS,
    earlyCloses: LSE_EARLY_CLOSES,
  },
  crypto: { kind: "always" },
};

/** The first and last years the stock calendars cover; outside them only weekends close a stock exchange. */
export const CALENDAR_YEARS = { from: 2026, to: 2027 } as const;

/** The daily rollover (overnight fees): 17:00 New York time, the FX market's day end. */
export const ROLLOVER = { timeZone: NEW_YORK, at: hm(17) } as const;
