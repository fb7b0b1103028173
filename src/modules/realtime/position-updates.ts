import type { UserActor } from "../../core/actor.js";
import type { PositionExitsChanged } from "../../core/events.js";
import { type Deps, withActor } from "../context.js";
import { getPortfolio } from "../trading/read-account.js";

export const POSITION_UPDATE_TYPE = "Trading.PositionUpdate";

interface Watched {
  userId: string;
  positionId: number;
  cid: number;
  instrumentId: number;
  isBuy: boolean;
  takeProfitRate: number;
  /** The stop-loss last told (a trailing stop's level). */
  stopLossRate: number;
}

/**
 * `Trading.PositionUpdate` when a position's exits change: its owner changed them
 * (`PATCH /api/v2/trading/execution/demo/positions/{positionId}`, decision 0126), or a trailing
 * stop moved with the price (decision 0113). Watched are the trailing positions of users with a
 * `private` socket on this instance; after every tick (the triggers' index is in step on every
 * instance, decision 0050) each whose level moved is told, with the level the portfolio shows as
 * `stopLossRate`.
 */
export class PositionUpdates {
  private readonly watched = new Map<number, Watched>();

  /** A socket subscribed to `private`: its user's open trailing positions are watched. */
  async follow(deps: Deps, actor: UserActor): Promise<void> {
    const portfolio = await getPortfolio(withActor(deps, actor));
    for (const p of portfolio.positions) {
      if (p.position.isTslEnabled !== 1) continue;
      this.watch({
        userId: actor.userId,
        positionId: p.position.positionId,
        cid: p.position.cid,
        instrumentId: p.position.instrumentId,
        isBuy: p.position.isBuy === 1,
        takeProfitRate: p.position.takeProfitRate,
        stopLossRate: p.stopLossRate,
      });
    }
  }

  watch(position: Watched): void {
    if (!this.watched.has(position.positionId)) this.watched.set(position.positionId, position);
  }

  forget(positionId: number): void {
    this.watched.delete(positionId);
  }

  /** The user's last `private` socket here went: nobody to tell. */
  forgetUser(userId: string): void {
    for (const [id, w] of this.watched) if (w.userId === userId) this.watched.delete(id);
  }

  /** The owner changed a position's exits (on any instance): told at once, and watched if it now trails. */
  exitsChanged(deps: Deps, e: PositionExitsChanged): void {
    this.forget(e.positionId);
    const levels = {
      userId: e.userId,
      positionId: e.positionId,
      cid: e.cid,
      instrumentId: e.instrumentId,
      isBuy: e.isBuy,
      takeProfitRate: e.takeProfitRate,
      stopLossRate: e.stopLossRate,
    };
    if (e.isTslEnabled && deps.realtime.listensPrivate(e.userId)) this.watch(levels);
    deps.realtime.toUser(e.userId, "private", POSITION_UPDATE_TYPE, updateOf(levels, e.isTslEnabled, e.occurredAt));
  }

  /** After a tick: tells each watched position's owner of a moved level. */
  afterTick(deps: Deps): void {
    if (this.watched.size === 0) return;
    const index = deps.triggers.index;
    const hub = deps.realtime;
    for (const w of this.watched.values()) {
      const stop = index.currentStop(w.positionId);
      if (stop === undefined || stop === w.stopLossRate) continue;
      w.stopLossRate = stop;
      hub.toUser(w.userId, "private", POSITION_UPDATE_TYPE, updateOf(w, true, deps.clock.now().toISOString()));
    }
  }
}

/** The message's content (decision 0113): upstream's names, the levels the portfolio shows. */
const updateOf = (w: Watched, isTslEnabled: boolean, date: string) => ({
  PositionID: w.positionId,
  OrderID: w.positionId,
  CID: w.cid,
  InstrumentID: w.instrumentId,
  IsBuy: w.isBuy,
  StopLossRate: w.stopLossRate,
  TakeProfitRate: w.takeProfitRate,
  IsTslEnabled: isTslEnabled,
  IsNoStopLoss: w.stopLossRate === 0,
  IsNoTakeProfit: w.takeProfitRate === 0,
  Date: date,
});
