import { createHash } from "node:crypto";
import type { EntryOrderEnded, PositionClosed, PriceAlertTriggered } from "../../core/events.js";

const WHO: Record<PositionClosed["reason"], string> = {
  Manual: "You closed",
  StopLoss: "Your stop-loss closed",
  TakeProfit: "Your take-profit closed",
  TrailingStopLoss: "Your trailing stop-loss closed",
};

/** "Your stop-loss closed BTC (position 12) at 61250.5: -1234.56 USD." */
export function positionClosedMessage(e: PositionClosed): string {
  const what = e.fullyClosed ? "" : `${Number(e.unitsClosed.toPrecision(10))} units of `;
  const pnl = (e.netProfitCents / 100).toFixed(2);
  const signed = e.netProfitCents > 0 ? `+${pnl}` : pnl;
  return `${WHO[e.reason]} ${what}${e.symbol || `instrument ${e.instrumentId}`} (position ${e.positionId}) at ${e.closeRate}: ${signed} USD.`;
}

/** A stable uuid-shaped correlation id per position, so a client can group a position's notifications. */
export function newIdFromPosition(positionId: number): string {
  const h = createHash("sha256").update(`position:${positionId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** "AAPL rose to your price alert at 185.5 (bid 185.52)." */
export function priceAlertMessage(e: PriceAlertTriggered): string {
  const moved = e.direction === "above" ? "rose" : "fell";
  return `${e.symbol || `Instrument ${e.instrumentId}`} ${moved} to your price alert at ${e.targetPrice} (bid ${e.price}).`;
}

/** "Your entry order 41 to buy AAPL at 180 executed at 179.95 (position 42)." */
export function entryOrderMessage(e: EntryOrderEnded): string {
  const what = `Your entry order ${e.orderId} to ${e.isBuy ? "buy" : "sell"} ${e.symbol || `instrument ${e.instrumentId}`} at ${e.triggerRate}`;
  if (e.outcome === "executed") return `${what} executed at ${e.rate} (position ${e.positionId}).`;
  if (e.outcome === "rejected") return `${what} was rejected when the price reached it: ${e.reason}.`;
  return `${what} expired.`;
}

/** A stable uuid-shaped correlation id per order (an entry order's notifications group by it). */
export function newIdFromOrder(orderId: number): string {
  const h = createHash("sha256").update(`order:${orderId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
