import type { PositionClosed } from "../../core/events.js";
import type { Deps } from "../context.js";
import { type NotifyInput, notify, notifyMany } from "./notify.js";
import { registerSocialSubscribers } from "./social-subscribers.js";
import {
  entryOrderMessage,
  newIdFromOrder,
  newIdFromPosition,
  positionClosedMessage,
  priceAlertMessage,
} from "./trading-messages.js";

/**
 * Turns domain events into notifications: the social ones inside the transaction that records their
 * event (`registerSocialSubscribers`, decision 0204), the others after it commits.
 */
export function registerNotificationSubscribers(deps: Deps): void {
  registerSocialSubscribers(deps);
  deps.bus.subscribe("UserRegistered", async (event) => {
    await notify(deps, {
      userId: event.userId,
      kind: "welcome",
      message: `Welcome, ${event.username}! Your demo account is ready.`,
      actionLink: "/api/v1/me",
      correlationId: event.userId,
      publishDate: event.occurredAt,
    });
  });
  deps.bus.subscribe("PriceAlertTriggered", async (event) => {
    await notify(deps, {
      userId: event.userId,
      kind: "priceAlert",
      message: priceAlertMessage(event),
      actionLink: `/api/v1/market-data/instruments/rates?instrumentIds=${event.instrumentId}`,
      correlationId: event.alertId,
      publishDate: event.occurredAt,
    });
  });
  const closed = (event: PositionClosed): NotifyInput => ({
    userId: event.userId,
    kind: "positionClosed",
    message: positionClosedMessage(event),
    actionLink: "/api/v1/trading/info/trade/demo/history",
    correlationId: newIdFromPosition(event.positionId),
    publishDate: event.occurredAt,
  });
  deps.bus.subscribe("PositionClosed", async (event) => {
    await notify(deps, closed(event));
  });
  // Copies closed with the position they copy: each copier told as for a close of their own.
  deps.bus.subscribe("CopiesClosed", async (event) => {
    await notifyMany(deps, event.closes.map(closed));
  });
  // The owner is told what the book did on their behalf; a cancel is their own act (not told).
  deps.bus.subscribe("EntryOrderEnded", async (event) => {
    if (event.outcome === "cancelled") return;
    await notify(deps, {
      userId: event.userId,
      kind: "entryOrder",
      message: entryOrderMessage(event),
      actionLink: `/api/v2/trading/info/demo/orders:lookup?orderId=${event.orderId}`,
      correlationId: newIdFromOrder(event.orderId),
      publishDate: event.occurredAt,
    });
  });
}
