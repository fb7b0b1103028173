import type { Deps } from "../../context.js";
import { transact } from "../../context.js";
import { currentQuotes } from "../../market/quotes.js";
import { pnlCents } from "../../trading/math.js";
import { type AccountToSnapshot, type PeopleRepository, peopleRepository } from "../people.repository.js";
import { addMonths, type DayReturn, dailyReturn, dayOf, RISK_WINDOW_DAYS, riskScoreOf } from "./returns.js";
import { statsFor } from "./stats.js";

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

/** Accounts per batch: one transaction each, with a yield to the event loop between them. */
export const SNAPSHOT_BATCH = 500;

/**
 * Records `day`'s close of `accounts` (their open positions valued by `priceOf`), the day's
 * time-weighted return against each one's previous close, and refreshes their search figures.
 */
export async function snapshotBatch(
  deps: Deps,
  accounts: readonly AccountToSnapshot[],
  positions: readonly OpenPosition[],
  day: string,
  priceOf: PriceOf,
  symbols: Map<number, string>,
): Promise<void> {
  const takenAt = deps.clock.now().toISOString();
  const ids = accounts.map((a) => a.userId);
  await transact(deps, async (trx) => {
    const repo = peopleRepository(trx);
    const previous = await repo.lastSnapshotsBefore(ids, day);
    const history = groupReturns(await repo.returnsSince(ids, addMonths(day, -24)), day);
    const byUser = new Map<string, OpenPosition[]>();
    for (const p of positions) {
      const list = byUser.get(p.userId);
      if (list) list.push(p);
      else byUser.set(p.userId, [p]);
    }
    const snapshots = [];
    const stats = [];
    const holdingRows: { userId: string; instrumentId: number; pct: number }[] = [];
    for (const account of accounts) {
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
      snapshots.push({ ...close.row, takenAt });
      for (const s of statsFor([...past, close.day], day))
        stats.push({ userId: account.userId, ...s, updatedAt: takenAt });
      holdingRows.push(...close.holdings);
    }
    await repo.upsertSnapshots(snapshots);
    await repo.upsertStats(stats);
    await repo.replaceHoldings(ids, holdingRows);
  });
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
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Today's close (UTC day from deps.clock) of every demo account at the current prices, in batches
 * with a yield between them so requests keep being served. Run again the same day, it replaces
 * that day's rows: the day's last pass stands as its close.
 */
export async function takeSnapshots(
  deps: Deps,
  onBatch?: (done: number) => void,
  batchSize = SNAPSHOT_BATCH,
): Promise<SnapshotReport> {
  const started = performance.now();
  const day = dayOf(deps.clock.now());
  const repo: PeopleRepository = peopleRepository(deps.db.kysely);
  const symbols = await repo.symbols();
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
    await snapshotBatch(deps, accounts, positions, day, priceOf, symbols);
    done += accounts.length;
    onBatch?.(done);
    after = accounts[accounts.length - 1]!.userId;
    await yieldToRequests();
  }
  return { day, accounts: done, ms: performance.now() - started };
}

/**
 * Takes the snapshot now and every `everyMs` while this instance leads the market (one instance
 * records for all); a failed pass is logged and retried on the next. The timer never keeps the
 * process alive.
 */
export function startSnapshots(deps: Deps, everyMs = deps.config.people.snapshotEveryMs): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const pass = () => {
    if (busy || !deps.market.isLeader) return;
    busy = true;
    running = takeSnapshots(deps)
      .then((report) => deps.log.debug({ report }, "account snapshots"))
      .catch((error) => deps.log.warn({ err: error }, "account snapshots failed"))
      .finally(() => {
        busy = false;
      });
  };
  pass();
  // The lease is won on the market's first timed tick: try again shortly after start.
  const first = setTimeout(pass, 5_000);
  first.unref();
  const timer = setInterval(pass, everyMs);
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
