import { randomUUID } from "node:crypto";
import type { UserActor } from "../../../core/actor.js";
import { AppError } from "../../../core/errors.js";
import { repeatEvery } from "../../../core/repeat.js";
import { type Deps, withActor } from "../../context.js";
import { findInstrumentDetails } from "../../market/find-instruments.js";
import { closePosition } from "../../trading/close-position.js";
import { demoLedger, type PositionRow } from "../../trading/demo-ledger.js";
import { openMarketOrder } from "../../trading/open-market-order.js";
import { leverageOf, SEEDED_PLANS } from "../history/seed-history.js";
import { peopleRepository } from "../people.repository.js";

/** The user whose account is the caller's own on a fresh start: never traded by the strategy. */
const NOT_A_STRATEGY = "demo";

export interface StrategyTrade {
  username: string;
  action: "open" | "close";
  instrumentId: number;
  positionId: number;
}

export interface StrategySkip {
  username: string;
  instrumentId: number;
  reason: string;
}

export interface StrategyPass {
  trades: StrategyTrade[];
  skipped: StrategySkip[];
}

/**
 * One pass of the seeded traders' strategy (decision 0174): each seeded trader (not `demo`) that has
 * a demo account rolls its oldest position: closes it at market and opens the same instrument,
 * direction and leverage again with what came back. A trader holding nothing opens its plan's legs
 * (SEEDED_PLANS) at their shares of its cash. Every trade goes through the trading module as any
 * client's, so copies mirror it, notifications and the real-time channel see it. A closed market or
 * an amount under the instrument's minimum is skipped with its reason, never an error of the pass.
 */
export async function runSeededStrategies(deps: Deps): Promise<StrategyPass> {
  const pass: StrategyPass = { trades: [], skipped: [] };
  const usernames = Object.keys(SEEDED_PLANS).filter((u) => u !== NOT_A_STRATEGY);
  const traders = await peopleRepository(deps.db.kysely).usersByUsernames(usernames);
  traders.sort((a, b) => a.usernameLower.localeCompare(b.usernameLower));
  for (const trader of traders) {
    const ledger = demoLedger(deps.db.kysely);
    if (!(await ledger.findAccount(trader.id))) continue;
    const actor: UserActor = {
      kind: "user",
      userId: trader.id,
      gcid: trader.gcid,
      via: "key-pair",
      credentialId: "seeded-strategy",
      scopes: ["trade.demo:write"],
      environment: "demo",
    };
    const ctx = withActor(deps, actor);
    const own = (await ledger.openPositionsOf(trader.id)).filter((p) => p.mirrorId == null);
    const attempt = async (instrumentId: number, run: () => Promise<StrategyTrade>) => {
      try {
        pass.trades.push(await run());
        return true;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        pass.skipped.push({ username: trader.username, instrumentId, reason: error.message });
        return false;
      }
    };
    if (own.length > 0) {
      const oldest = own.sort(byAge)[0]!;
      await rollPosition(deps, ctx, trader.username, oldest, attempt);
    } else {
      await openPlan(deps, ctx, trader, attempt);
    }
  }
  return pass;
}

type Attempt = (instrumentId: number, run: () => Promise<StrategyTrade>) => Promise<boolean>;

const byAge = (a: PositionRow, b: PositionRow) =>
  a.openDateTime.localeCompare(b.openDateTime) || a.positionId - b.positionId;

async function rollPosition(
  deps: Deps,
  ctx: ReturnType<typeof withActor>,
  username: string,
  position: PositionRow,
  attempt: Attempt,
): Promise<void> {
  const { instrumentId } = position;
  let backCents = 0;
  const closed = await attempt(instrumentId, async () => {
    const { order } = await closePosition(ctx, randomUUID(), position.positionId, { instrumentId });
    backCents = position.amountCents + order.netProfitCents;
    return { username, action: "close", instrumentId, positionId: position.positionId };
  });
  if (!closed) return;
  const account = await demoLedger(deps.db.kysely).findAccount(position.userId);
  const amountCents = Math.min(Math.max(backCents, 0), account?.cashCents ?? 0);
  await attempt(instrumentId, () =>
    openAt(ctx, username, { instrumentId, isBuy: position.isBuy === 1, leverage: position.leverage, amountCents }),
  );
}

async function openPlan(
  deps: Deps,
  ctx: ReturnType<typeof withActor>,
  trader: { id: string; username: string; usernameLower: string },
  attempt: Attempt,
): Promise<void> {
  const legs = SEEDED_PLANS[trader.usernameLower] ?? [];
  const details = await findInstrumentDetails(
    deps,
    legs.map((l) => l.instrumentId),
  );
  const cashCents = (await demoLedger(deps.db.kysely).findAccount(trader.id))?.cashCents ?? 0;
  for (const leg of legs) {
    const instrument = details.get(leg.instrumentId);
    if (!instrument) continue;
    const amountCents = Math.floor(cashCents * leg.share);
    const leverage = leverageOf(instrument.allowedLeverages, leg.leverage);
    await attempt(leg.instrumentId, () =>
      openAt(ctx, trader.username, { instrumentId: leg.instrumentId, isBuy: leg.isBuy, leverage, amountCents }),
    );
  }
}

async function openAt(
  ctx: ReturnType<typeof withActor>,
  username: string,
  order: { instrumentId: number; isBuy: boolean; leverage: number; amountCents: number },
): Promise<StrategyTrade> {
  const { order: opened } = await openMarketOrder(ctx, randomUUID(), {
    instrumentId: order.instrumentId,
    isBuy: order.isBuy,
    leverage: order.leverage,
    amount: order.amountCents / 100,
    isNoStopLoss: true,
    isNoTakeProfit: true,
  });
  return { username, action: "open", instrumentId: order.instrumentId, positionId: opened.positionId };
}

/**
 * Runs a pass every `everyMs` while this instance leads the market (one instance trades for all);
 * `everyMs` 0 runs none. A failed pass is logged and the next one tries again. The timer never keeps
 * the process alive.
 */
export function startSeededStrategies(
  deps: Deps,
  everyMs = deps.config.people.seededTradingEveryMs,
): () => Promise<void> {
  if (everyMs === 0) return async () => {};
  const pass = () =>
    runSeededStrategies(deps).then(
      (done) => deps.log.debug({ pass: done }, "seeded traders traded"),
      (error) => deps.log.warn({ err: error }, "seeded traders' strategy failed"),
    );
  return repeatEvery(everyMs, pass, { when: () => deps.market.isLeader });
}
