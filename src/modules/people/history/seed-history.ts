import { randomUUID } from "node:crypto";
import type { Insertable } from "kysely";
import type { UserActor } from "../../../core/actor.js";
import type { AccountSnapshotsTable } from "../../../infra/db/schema.js";
import { type Deps, transact, withActor } from "../../context.js";
import { demoCidOf } from "../../identity/identity.view.js";
import { findInstrumentDetails } from "../../market/find-instruments.js";
import { RandomWalkSource } from "../../market/price-sources.js";
import { currentQuotes, toPriced } from "../../market/quotes.js";
import { pnlCents } from "../../trading/math.js";
import { openMarketOrder } from "../../trading/open-market-order.js";
import { type ReplayedTrade, recordReplayedTrades } from "../../trading/record-replayed-trades.js";
import { peopleRepository } from "../people.repository.js";
import { addDays, type DayReturn, dayOf } from "./returns.js";
import { statsFor } from "./stats.js";
import { closeOf, type OpenPosition, searchColumnsOf, symbolsOf } from "./take-snapshots.js";

/** One leg of a seeded trader's plan: a share of equity in one instrument, at a leverage band. */
interface Leg {
  instrumentId: number;
  isBuy: boolean;
  share: number;
  leverage: "low" | "mid" | "high";
}

/** The seeded traders' plans (decision 0142): different instruments, sides and leverage, so risk differs. */
export const SEEDED_PLANS: Record<string, Leg[]> = {
  demo: [{ instrumentId: 27, isBuy: true, share: 0.5, leverage: "low" }],
  alice: [
    { instrumentId: 1001, isBuy: true, share: 0.4, leverage: "low" },
    { instrumentId: 100000, isBuy: true, share: 0.2, leverage: "low" },
  ],
  bob: [
    { instrumentId: 1, isBuy: false, share: 0.3, leverage: "high" },
    { instrumentId: 18, isBuy: true, share: 0.3, leverage: "mid" },
    { instrumentId: 17, isBuy: true, share: 0.2, leverage: "mid" },
  ],
  carmen: [{ instrumentId: 100000, isBuy: true, share: 0.6, leverage: "high" }],
};

/** Daily volatility of the replayed walk (times each instrument's factor), and the rebalancing period. */
const DAILY_VOLATILITY = 0.012;
const REBALANCE_EVERY_DAYS = 30;
const MAX_SEEDED_LEVERAGE = 10;

export function leverageOf(allowed: readonly number[], band: Leg["leverage"]): number {
  const usable = allowed.filter((l) => l <= MAX_SEEDED_LEVERAGE).sort((a, b) => a - b);
  if (usable.length === 0) return 1;
  if (band === "low") return usable[0]!;
  if (band === "high") return usable[usable.length - 1]!;
  return usable[Math.floor(usable.length / 2)]!;
}

interface Trader {
  userId: string;
  gcid: number;
  username: string;
  cashCents: number;
  positions: (OpenPosition & { openedAt: string })[];
  legs: (Leg & { lev: number })[];
}

/** The replayed day's close time: the walk's price of a day is its close. */
const closeTimeOf = (day: string) => `${day}T21:00:00.000Z`;

/**
 * A year (PEOPLE_SEED_HISTORY_DAYS) of daily closes for each seeded trader without history or a
 * demo account, replayed from the market's seeded random walk stepped once per day back from today's
 * prices; then the trader's demo account is opened at the replay's final equity with the plan's
 * positions, through the trading module, so live history continues from the replayed one.
 * Returns the traders seeded.
 */
export async function seedTradingHistory(deps: Deps, onProgress: (step: string) => void = () => {}): Promise<number> {
  const days = deps.config.people.seedHistoryDays;
  if (days === 0) return 0;
  const people = peopleRepository(deps.db.kysely);
  const users = await people.usersByUsernames(Object.keys(SEEDED_PLANS));
  const fresh = [];
  for (const u of users) {
    if ((await people.latestSnapshotOf(u.id)) || (await people.cashOf(u.id)) !== undefined) continue;
    fresh.push(u);
  }
  if (fresh.length === 0) return 0;
  const ids = [...new Set(fresh.flatMap((u) => SEEDED_PLANS[u.usernameLower]!.map((l) => l.instrumentId)))];
  const details = await findInstrumentDetails(deps, ids);
  const quotes = await currentQuotes(deps, ids);
  const symbols = await symbolsOf(deps);
  const today = dayOf(deps.clock.now());
  const first = addDays(today, -days);

  // Each instrument's mid at the close of each past day: the walk stepped backwards from today.
  const walk = new RandomWalkSource(deps.config.market.seed ^ 0x5eed, DAILY_VOLATILITY);
  const paths = new Map<number, number[]>();
  for (const id of ids) {
    const instrument = details.get(id);
    const quote = quotes.get(id);
    if (!instrument || !quote) continue;
    const path = new Array<number>(days);
    let mid = quote.mid;
    for (let i = days - 1; i >= 0; i--) {
      mid = walk.next(toPriced(instrument), mid);
      path[i] = mid;
    }
    paths.set(id, path);
  }

  const starting = deps.config.demo.startingBalanceCents;
  const traders: Trader[] = fresh.map((u) => ({
    userId: u.id,
    gcid: u.gcid,
    username: u.username,
    cashCents: starting,
    positions: [],
    legs: SEEDED_PLANS[u.usernameLower]!.filter((l) => paths.has(l.instrumentId)).map((l) => ({
      ...l,
      lev: leverageOf(details.get(l.instrumentId)!.allowedLeverages, l.leverage),
    })),
  }));
  const equityOf = (t: Trader, price: (id: number) => number) =>
    t.cashCents +
    t.positions.reduce(
      (s, p) => s + p.amountCents + pnlCents(p.isBuy === 1, p.units, p.openRate, price(p.instrumentId), p.amountCents),
      0,
    );

  // Every close in memory through the daily job's own arithmetic (closeOf), then written at once.
  const takenAt = deps.clock.now().toISOString();
  const rows: Insertable<AccountSnapshotsTable>[] = [];
  const series = new Map<string, DayReturn[]>(traders.map((t) => [t.userId, []]));
  const last = new Map<string, { equityCents: number; depositsCents: number; unitValue: number; day: string }>();
  let holdings: { userId: string; instrumentId: number; pct: number }[] = [];
  // Each rebalance closes the plan's positions at the day's close and opens them again: those closes
  // are the traders' closed trades (tradeinfo's counts, win ratio, leverage bands; decision 0166).
  const trades: ReplayedTrade[] = [];
  const closeAll = (t: Trader, price: (id: number) => number, closedAt: string) => {
    for (const p of t.positions) {
      const closeRate = price(p.instrumentId);
      trades.push({
        userId: t.userId,
        cid: demoCidOf(t.gcid),
        instrumentId: p.instrumentId,
        isBuy: p.isBuy === 1,
        leverage: p.leverage,
        amountCents: p.amountCents,
        units: p.units,
        openRate: p.openRate,
        closeRate,
        openedAt: p.openedAt,
        closedAt,
        netProfitCents: pnlCents(p.isBuy === 1, p.units, p.openRate, closeRate, p.amountCents),
        closeReason: "Manual",
      });
    }
  };
  for (let i = 0; i < days; i++) {
    const day = addDays(first, i);
    const price = (id: number) => paths.get(id)![i]!;
    if (i % REBALANCE_EVERY_DAYS === 0) {
      for (const t of traders) {
        closeAll(t, price, closeTimeOf(day));
        t.cashCents = equityOf(t, price);
        t.positions = t.legs.map((leg) => {
          const amountCents = Math.round(t.cashCents * leg.share);
          return {
            userId: t.userId,
            instrumentId: leg.instrumentId,
            isBuy: leg.isBuy ? 1 : 0,
            leverage: leg.lev,
            amountCents,
            units: ((amountCents / 100) * leg.lev) / price(leg.instrumentId),
            openRate: price(leg.instrumentId),
            openedAt: closeTimeOf(day),
          };
        });
        t.cashCents -= t.positions.reduce((s, p) => s + p.amountCents, 0);
      }
    }
    holdings = [];
    for (const t of traders) {
      const past = series.get(t.userId)!;
      const close = closeOf(
        { userId: t.userId, cashCents: t.cashCents, depositsCents: starting },
        t.positions,
        last.get(t.userId),
        past,
        day,
        (id) => paths.get(id)?.[i],
        symbols,
      );
      rows.push({ ...close.row, takenAt });
      past.push(close.day);
      last.set(t.userId, close.row);
      holdings.push(...close.holdings);
    }
    if ((i + 1) % 73 === 0 || i === days - 1) onProgress(`history: ${i + 1}/${days} days of ${traders.length} traders`);
  }
  const lastDay = addDays(first, days - 1);
  // The replay's last positions close at today's prices, where the live account takes over.
  const handover = deps.clock.now().toISOString();
  for (const t of traders) closeAll(t, (id) => quotes.get(id)!.mid, handover);
  const columns = await searchColumnsOf(
    deps,
    traders.map((t) => t.userId),
  );
  await transact(deps, async (trx) => {
    const repo = peopleRepository(trx);
    await repo.upsertSnapshots(rows);
    await repo.upsertStats(
      traders.flatMap((t) =>
        statsFor(series.get(t.userId)!, lastDay).map((st) => ({
          userId: t.userId,
          ...st,
          ...columns.get(t.userId)!,
          updatedAt: takenAt,
        })),
      ),
    );
    await repo.replaceHoldings(
      traders.map((t) => t.userId),
      holdings,
    );
    await recordReplayedTrades(trx, trades);
  });

  // Today: the account opens at the replay's equity (realised), and the plan's positions are opened live.
  for (const t of traders) {
    const equity = equityOf(t, (id) => quotes.get(id)!.mid);
    const now = deps.clock.now().toISOString();
    await people.openReplayedAccount({
      userId: t.userId,
      cid: demoCidOf(t.gcid),
      cashCents: equity,
      startingCents: starting,
      realizedPnlCents: equity - starting,
      createdAt: now,
      updatedAt: now,
    });
    const actor: UserActor = {
      kind: "user",
      userId: t.userId,
      gcid: t.gcid,
      via: "key-pair",
      credentialId: "seed",
      scopes: ["trade.demo:write"],
      environment: "demo",
    };
    for (const leg of t.legs) {
      const amount = Math.floor(equity * leg.share) / 100;
      await openMarketOrder(withActor(deps, actor), randomUUID(), {
        instrumentId: leg.instrumentId,
        isBuy: leg.isBuy,
        leverage: leg.lev,
        amount,
        isNoStopLoss: true,
        isNoTakeProfit: true,
      });
    }
  }
  return traders.length;
}
