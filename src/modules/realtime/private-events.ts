import type { CloseReason, ExecutedOrder, PriceAlertTriggered } from "../../core/events.js";

/**
 * The `private` topic's content (upstream-websocket.md §3.2): upstream's field names with JSON
 * numbers and booleans, as in its one documented sample, and values equal to our REST records,
 * so a client matches `OrderID` / `PositionID` with `GET /trading/info/demo/orders/{orderId}`.
 */

export const OPEN_TYPE = "Trading.OrderForOpen.Update";
export const CLOSE_TYPE = "Trading.OrderForCloseMultiple.Update";

/** Upstream carries CloseReason as a number whose values are not on record: ours, in 0113. */
export const CLOSE_REASON_CODES: Record<CloseReason, number> = {
  Manual: 0,
  StopLoss: 1,
  TakeProfit: 2,
  TrailingStopLoss: 3,
};

const money = (cents: number) => cents / 100;

export function privateMessageOf(order: ExecutedOrder): { type: string; content: Record<string, unknown> } {
  const common = {
    OrderID: order.orderId,
    OrderType: order.orderType,
    CID: order.cid,
    StatusID: order.statusId,
    StatusId: order.statusId,
    InstrumentID: order.instrumentId,
    PositionID: order.positionId,
    IsBuy: order.isBuy,
    Leverage: order.leverage,
    Amount: money(order.amountCents),
    RequestGuid: order.token,
    RequestToken: order.token,
    RequestOccurred: order.openDateTime,
    OpenDateTime: order.openDateTime,
    ErrorCode: 0,
    ErrorMessage: "",
    IsInMirror: false,
    TotalExternalFees: 0,
    TotalExternalTaxes: 0,
  };
  if (!order.close) {
    return {
      type: OPEN_TYPE,
      content: {
        ...common,
        Rate: order.rate,
        Units: order.units,
        RequestedUnits: order.requestedUnits ?? order.units,
        ExecutedUnits: order.units,
        StopLossRate: order.stopLossRate,
        TakeProfitRate: order.takeProfitRate,
        IsTslEnabled: order.isTslEnabled,
      },
    };
  }
  return {
    type: CLOSE_TYPE,
    content: {
      ...common,
      UnitsToDeduct: order.units,
      LotsToDeduct: order.units,
      RequestedUnits: order.units,
      ExecutedUnits: order.units,
      RequestedLots: order.units,
      ExecutedLots: order.units,
      EndRate: order.rate,
      NetProfit: money(order.close.netProfitCents),
      CloseReason: CLOSE_REASON_CODES[order.close.reason],
      CloseReasonName: order.close.reason,
      IsFullyClosed: order.close.fullyClosed,
      PendingClosePositionIDs: [],
    },
  };
}

/** Our `notifications` extension: the REST list's item, as its content. */
export const NOTIFICATION_TYPE = "Notifications.Notification.Created";

/**
 * Ours, on `private` to sockets whose credential reads price alerts (decision 0121): an alert of
 * the caller fired. Upstream has no such message; clients that know only upstream's `Trading.*`
 * types pass over it.
 */
export const PRICE_ALERT_TYPE = "PriceAlerts.Alert.Triggered";

export const priceAlertMessageOf = (event: PriceAlertTriggered) => ({
  alertId: event.alertId,
  instrumentId: event.instrumentId,
  symbol: event.symbol,
  targetPrice: event.targetPrice,
  direction: event.direction,
  triggeredPrice: event.price,
  triggeredAt: event.occurredAt,
});
