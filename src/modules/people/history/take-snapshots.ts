import { repeatEvery } from "../../../core/repeat.js";
import type { PeopleStatsTable } from "../../../infra/db/schema.js";
import type { Deps } from "../../context.js";
import { transact } from "../../context.js";
import { getUserProfiles } from "../../identity/user-profiles.js";
import { listInstruments } from "../../market/find-instruments.js";
import { currentQuotes } from "../../market/quotes.js";
import { pnlCents } from "../../trading/math.js";
import { type AccountToSnapshot, type PeopleRepository, peopleRepository } from "../people.repository.js";
import { addMonths, type DayReturn, dailyReturn, dayOf, RISK_WINDOW_DAYS, riskScoreOf } from "./returns.js";
import { stagedSink, type WriterTimings } from "./staged-pass.js";
import { type PeriodStats, periodCalendar, statsFor } from "./stats.js";

/** One instrument of a snapshot, summed over the account's open positions in it. */
export interface SnapshotHolding {
  instrumentId: number;
  symbol: string;
  /** Margin put in (cents). */
  investedCents: number;
  /** Margin plus unrealised P/L at the close-side price (cents). */
  valueCents: number;
  /** Signed notional (units × close-side price; negative short), cents. */
  netCents: number;
}

/** An open position as the snapshot values it. */
export interface OpenPosition {
  userId: string;
  instrumentId: number;
  isBuy: number;
  leverage: number;
  amountCents: number;
  units: number;
  openRate: number;
}

/** The close-side price of an instrument (the bid for a long, the ask for a short), or undefined. */
export type PriceOf = (instrumentId: number, isBuy: boolean) => number | undefined;

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Accounts read and computed per batch (their history is read at once, outside any transaction). */
export const SNAPSHOT_BATCH = 500;
/**
 * Accounts written per transaction. SQLite's one connection serves nothing else while a transaction
 * is open, so each is kept short and the pass yields to the event loop between them (decision 0165).
 */
export const SNAPSHOT_WRITE_CHUNK = 50;

/** Every instrument's symbol, from the market module's catalog (holdings name their instruments). */
export async function symbolsOf(deps: Deps): Promise<Map<number, string>> {
  return new Map((await listInstruments(deps)).map((i) => [i.instrumentId, i.symbol]));
}

/** The user's columns of an account's search rows (decision 0165). */
export type SearchColumns = Pick<
  PeopleStatsTable,
  "gcid" | "usernameLower" | "countryCode" | "piLevel" | "registeredAt" | "listed" | "optOut"
>;

/** The search columns of each of `userIds` that is a user, from identity's records and people's settings. */
export async function searchColumnsOf(deps: Deps, userIds: readonly string[]): Promise<Map<string, SearchColumns>> {
  const users = await getUserProfiles(deps, userIds);
  const settings = await peopleRepository(deps.db.kysely).settingsOf(userIds);
  const out = new Map<string, SearchColumns>();
  for (const [id, u] of users) {
    out.set(id, {
      gcid: u.gcid,
      usernameLower: u.username.toLowerCase(),
      countryCode: u.profile.countryCode,
      piLevel: u.profile.piLevel,
      registeredAt: u.createdAt,
      listed: u.isPrivate ? 0 : 1,
      optOut: settings.get(id)?.portfolioOptOut ? 1 : 0,
    });
  }
  return out;
}

/** One account's rows of a pass: its snapshot, its search figures per period, its holdings' shares. */
export interface AccountClose {
  userId: string;
  snapshot: ReturnType<typeof closeOf>["row"] & { takenAt: string };
  stats: (PeriodStats & SearchColumns & { userId: string; updatedAt: string })[];
  holdings: { userId: string; instrumentId: number; pct: number }[];
}

/**
 * `day`'s close of `accounts` (their open positions valued by `priceOf`), the day's time-weighted
 * return against each one's previous close and their search figures, read and computed outside any
 * transaction.
 */
export async function closesOf(
  deps: Deps,
  accounts: readonly AccountToSnapshot[],
  positions: readonly OpenPosition[],
  day: string,
  priceOf: PriceOf,
  symbols: Map<number, string>,
): Promise<AccountClose[]> {
  const takenAt = deps.clock.now().toISOString();
  const ids = accounts.map((a) => a.userId);
  const repo = peopleRepository(deps.db.kysely);
  const previous = await repo.lastSnapshotsBefore(ids, day);
  const history = groupReturns(await repo.returnsSince(ids, addMonths(day, -24)), day);
  const columns = await searchColumnsOf(deps, ids);
  const calendar = periodCalendar(day);
  const byUser = new Map<string, OpenPosition[]>();
  for (const p of positions) {
    const list = byUser.get(p.userId);
    if (list) list.push(p);
    else byUser.set(p.userId, [p]);
  }
  return accounts.map((account) => {
    const past = history.get(account.userId) ?? [];
    const close = closeOf(
      account,
      byUser.get(account.userId) ?? [],
      previous.get(account.userId),
      past,
      day,
      priceOf,
      symbols,
    );
    const user = columns.get(account.userId);
    const stats = user
      ? statsFor([...past, close.day], day, calendar).map((s) => ({
          userId: account.userId,
          ...s,
          ...user,
          updatedAt: takenAt,
        }))
      : [];
    // `takenAt` first: a field after a spread costs a hidden class per account (decision 0213).
    return { userId: account.userId, snapshot: { takenAt, ...close.row }, stats, holdings: close.holdings };
  });
}

/**
 * Records `day`'s close of `accounts` and refreshes their search figures in place (PostgreSQL, SQLite
 * in memory): everything is read and computed first; the writes go in short transactions with a
 * yield between.
 */
export async function snapshotBatch(
  deps: Deps,
  accounts: readonly AccountToSnapshot[],
  positions: readonly OpenPosition[],
  day: string,
  priceOf: PriceOf,
  symbols: Map<number, string>,
  writeChunk = SNAPSHOT_WRITE_CHUNK,
): Promise<void> {
  const closes = await closesOf(deps, accounts, positions, day, priceOf, symbols);
  for (let i = 0; i < closes.length; i += writeChunk) {
    if (i > 0) await yieldToRequests();
    const part = closes.slice(i, i + writeChunk);
    await transact(deps, async (trx) => {
      const writer = peopleRepository(trx);
      await writer.upsertSnapshots(part.map((c) => c.snapshot));
      await writer.upsertStats(part.flatMap((c) => c.stats));
      await writer.replaceHoldings(
        part.map((c) => c.userId),
        part.flatMap((c) => c.holdings),
      );
    });
  }
}

/** One account's close of `day`: its snapshot row (without takenAt), its return day and its holdings' shares. */
export function closeOf(
  account: AccountToSnapshot,
  positions: readonly OpenPosition[],
  prev: { equityCents: number; depositsCents: number; unitValue: number; day: string } | undefined,
  past: readonly DayReturn[],
  day: string,
  priceOf: PriceOf,
  symbols: Map<number, string>,
) {
  const holdings = new Map<number, SnapshotHolding>();
  for (const p of positions) {
    const isBuy = p.isBuy === 1;
    const rate = priceOf(p.instrumentId, isBuy) ?? p.openRate;
    const pnl = pnlCents(isBuy, p.units, p.openRate, rate, p.amountCents);
    const h = holdings.get(p.instrumentId) ?? {
      instrumentId: p.instrumentId,
      symbol: symbols.get(p.instrumentId) ?? String(p.instrumentId),
      investedCents: 0,
      valueCents: 0,
      netCents: 0,
    };
    h.investedCents += p.amountCents;
    h.valueCents += p.amountCents + pnl;
    h.netCents += Math.round(p.units * rate * 100) * (isBuy ? 1 : -1);
    holdings.set(p.instrumentId, h);
  }
  const list = [...holdings.values()].sort((a, b) => a.instrumentId - b.instrumentId);
  const investedCents = list.reduce((s, h) => s + h.investedCents, 0);
  const equityCents = account.cashCents + list.reduce((s, h) => s + h.valueCents, 0);
  const r = dailyReturn(prev, { day, equityCents, depositsCents: account.depositsCents });
  const window = [...past.slice(-(RISK_WINDOW_DAYS - 1)).map((d) => d.dailyReturn), r];
  const riskScore = riskScoreOf(window);
  return {
    row: {
      userId: account.userId,
      day,
      equityCents,
      cashCents: account.cashCents,
      investedCents,
      depositsCents: account.depositsCents,
      dailyReturn: r,
      unitValue: (prev?.unitValue ?? 1) * (1 + r),
      riskScore,
      holdings: JSON.stringify(list),
    },
    day: { day, dailyReturn: r, riskScore } satisfies DayReturn,
    holdings: list.map((h) => ({
      userId: account.userId,
      instrumentId: h.instrumentId,
      pct: investedCents > 0 ? Math.round((h.investedCents / investedCents) * 1e6) / 1e4 : 0,
    })),
  };
}

/** Returns per user before `day` (today's own row, from an earlier pass, is replaced). */
function groupReturns(
  rows: { userId: string; day: string; dailyReturn: number; riskScore: number }[],
  day: string,
): Map<string, DayReturn[]> {
  const out = new Map<string, DayReturn[]>();
  for (const r of rows) {
    if (r.day >= day) continue;
    const list = out.get(r.userId);
    const item = { day: r.day, dailyReturn: r.dailyReturn, riskScore: r.riskScore };
    if (list) list.push(item);
    else out.set(r.userId, [item]);
  }
  return out;
}

export interface SnapshotReport {
  day: string;
  accounts: number;
  ms: number;
  /** The bulk writer's share (SQLite), decision 0180. */
  writer?: WriterTimings;
}

/**
 * Today's close (UTC day from deps.clock) of every demo account at the current prices, in batches
 * with a yield between them so requests keep being served. Run again the same day, it replaces
 * that day's rows: the day's last pass stands as its close.
 */
export async function takeSnapshots(
  deps: Deps,
  onBatch?: (done: number) => void | Promise<void>,
  batchSize = SNAPSHOT_BATCH,
  writeChunk = SNAPSHOT_WRITE_CHUNK,
): Promise<SnapshotReport> {
  const started = performance.now();
  const day = dayOf(deps.clock.now());
  const bulk = deps.db.bulkWriter();
  const sink = bulk
    ? await stagedSink<Batch>(deps, bulk, (b) => closesOf(deps, b.accounts, b.positions, day, b.priceOf, b.symbols))
    : {
        write: (batch: Batch) =>
          snapshotBatch(deps, batch.accounts, batch.positions, day, batch.priceOf, batch.symbols, writeChunk),
        finish: async () => peopleRepository(deps.db.kysely).clearTouched(),
        abandon: async () => undefined,
      };
  try {
    const done = await eachBatch(deps, batchSize, sink.write, onBatch);
    await sink.finish();
    return {
      day,
      accounts: done,
      ms: performance.now() - started,
      writer: "timings" in sink ? sink.timings : undefined,
    };
  } catch (error) {
    await sink.abandon();
    throw error;
  }
}

interface Batch {
  accounts: AccountToSnapshot[];
  positions: OpenPosition[];
  priceOf: PriceOf;
  symbols: Map<number, string>;
}

/** Every demo account, `batchSize` at a time in user order, with its open positions and their prices. */
async function eachBatch(
  deps: Deps,
  batchSize: number,
  write: (batch: Batch) => Promise<void>,
  onBatch?: (done: number) => void | Promise<void>,
): Promise<number> {
  const repo: PeopleRepository = peopleRepository(deps.db.kysely);
  const symbols = await symbolsOf(deps);
  let after = "";
  let done = 0;
  for (;;) {
    const accounts = await repo.accountsAfter(after, batchSize);
    if (accounts.length === 0) break;
    const positions = await repo.openPositionsOf(accounts.map((a) => a.userId));
    const quotes = await currentQuotes(deps, [...new Set(positions.map((p) => p.instrumentId))]);
    const priceOf: PriceOf = (id, isBuy) => {
      const q = quotes.get(id);
      return q ? (isBuy ? q.bid : q.ask) : undefined;
    };
    await write({ accounts, positions, priceOf, symbols });
    done += accounts.length;
    await onBatch?.(done);
    after = accounts[accounts.length - 1]!.userId;
    await yieldToRequests();
  }
  return done;
}

/**
 * Takes the snapshot now and every `everyMs` while this instance leads the market (one instance
 * records for all); a failed pass is logged and retried on the next. The timer never keeps the
 * process alive.
 */
export function startSnapshots(deps: Deps, everyMs = deps.config.people.snapshotEveryMs): () => Promise<void> {
  const pass = () =>
    takeSnapshots(deps).then(
      (report) => deps.log.debug({ report }, "account snapshots"),
      (error) => deps.log.warn({ err: error }, "account snapshots failed"),
    );
  // The lease is won on the market's first timed tick: try again shortly after start.
  return repeatEvery(everyMs, pass, { now: true, alsoAfterMs: 5_000, when: () => deps.market.isLeader });
}
