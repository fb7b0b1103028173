/**
 * Whether an exchange trades at an instant, from the calendar (calendar.ts), and the daily
 * rollovers between two instants (overnight fees). Pure functions of the instant: time comes from
 * the caller (deps.clock). MARKET_HOURS=always makes every market always open.
 */
import { EXCHANGES } from "../catalog.js";
import { type ExchangeName, ROLLOVER, SESSIONS, type Session } from "./calendar.js";

export type MarketHoursMode = "exchange" | "always";

const exchangeById = new Map<number, ExchangeName>(
  Object.entries(EXCHANGES).map(([name, id]) => [id, name as ExchangeName]),
);

export interface LocalTime {
  /** YYYY-MM-DD in the zone. */
  date: string;
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number;
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      weekday: "short",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function parts(at: Date, timeZone: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(at)) out[p.type] = p.value;
  return out;
}

/** The wall-clock date, weekday and minute of `at` in `timeZone`. */
export function localTime(at: Date, timeZone: string): LocalTime {
  const p = parts(at, timeZone);
  return {
    date: `${p.year}-${p.month}-${p.day}`,
    weekday: WEEKDAYS[p.weekday as string] ?? 0,
    minutes: Number(p.hour) * 60 + Number(p.minute),
  };
}

/** Milliseconds `timeZone` is ahead of UTC at `at`. */
function offsetMs(at: number, timeZone: string): number {
  const p = parts(new Date(at), timeZone);
  const asUtc = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant when the wall clock in `timeZone` shows `date` (YYYY-MM-DD) at `minutes`. */
export function zonedInstant(date: string, minutes: number, timeZone: string): Date {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d, Math.floor(minutes / 60), minutes % 60);
  let guess = wall - offsetMs(wall, timeZone);
  // Once more: the offset at the guess may differ (a DST change between wall and guess).
  guess = wall - offsetMs(guess, timeZone);
  return new Date(guess);
}

/** Whether a session is trading at `at`. */
export function sessionOpen(session: Session, at: Date): boolean {
  if (session.kind === "always") return true;
  const t = localTime(at, session.timeZone);
  if (session.holidays.has(t.date)) return false;
  if (session.kind === "stock") {
    if (t.weekday === 0 || t.weekday === 6) return false;
    const close = session.earlyCloses.get(t.date) ?? session.close;
    return t.minutes >= session.open && t.minutes < close;
  }
  if (t.weekday === 6) return false;
  if (t.weekday === 0 && t.minutes < session.weekOpen) return false;
  if (t.weekday === 5 && t.minutes >= session.weekClose) return false;
  const b = session.dailyBreak;
  return !(b && t.minutes >= b.from && t.minutes < b.to);
}

export interface MarketHours {
  readonly mode: MarketHoursMode;
  /** Whether the exchange (catalog exchange id) trades at `at`; an unknown exchange always does. */
  isOpen(exchangeId: number, at: Date): boolean;
}

export function marketHours(mode: MarketHoursMode): MarketHours {
  // Every session starts and ends on a whole minute: an answer holds for the rest of its minute,
  // so a tick asks the time zones once per exchange, not once per instrument.
  let minute = Number.NaN;
  const answers = new Map<number, boolean>();
  return {
    mode,
    isOpen(exchangeId, at) {
      if (mode === "always") return true;
      const name = exchangeById.get(exchangeId);
      if (name === undefined) return true;
      const m = Math.floor(at.getTime() / 60_000);
      if (m !== minute) {
        minute = m;
        answers.clear();
      }
      let open = answers.get(exchangeId);
      if (open === undefined) {
        open = sessionOpen(SESSIONS[name], at);
        answers.set(exchangeId, open);
      }
      return open;
    },
  };
}

/** The exchange's name in the calendar, for messages. */
export const exchangeName = (exchangeId: number): string => exchangeById.get(exchangeId) ?? String(exchangeId);

/** A daily rollover: its instant and New York weekday (5 = Friday, whose rollover carries the weekend). */
export interface Rollover {
  /** The New York date of the rollover (YYYY-MM-DD): the key a fee is charged once under. */
  date: string;
  at: Date;
  weekday: number;
}

const DAY_MS = 86_400_000;

/**
 * The rollovers (17:00 New York) after `from` and at or before `to`, oldest first; at most
 * `limit` of them (a position held over years is charged in passes).
 */
export function rolloversBetween(from: Date, to: Date, limit = 400): Rollover[] {
  const out: Rollover[] = [];
  if (!(to.getTime() > from.getTime())) return out;
  let day = localTime(from, ROLLOVER.timeZone).date;
  for (let i = 0; out.length < limit; i++) {
    const at = zonedInstant(day, ROLLOVER.at, ROLLOVER.timeZone);
    if (at.getTime() > to.getTime()) break;
    if (at.getTime() > from.getTime()) out.push({ date: day, at, weekday: localTime(at, ROLLOVER.timeZone).weekday });
    // The next local date: noon of this one plus a day never crosses two dates over DST.
    day = localTime(new Date(zonedInstant(day, 12 * 60, ROLLOVER.timeZone).getTime() + DAY_MS), ROLLOVER.timeZone).date;
    if (i > 100_000) break;
  }
  return out;
}

declare module "../../context.js" {
  interface Deps {
    /** Market: which exchanges trade now (MARKET_HOURS, decision 0128). */
    readonly marketHours: MarketHours;
  }
}
