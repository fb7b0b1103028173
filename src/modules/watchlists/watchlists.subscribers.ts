import type { Deps } from "../context.js";
import { recordInvestment } from "./record-investment.js";

/** The RecentlyInvested watchlist follows the demo positions a user opens. Runs after commit. */
export function registerWatchlistSubscribers(deps: Deps): void {
  deps.bus.subscribe("PositionOpened", async (event) => {
    await recordInvestment(deps, {
      userId: event.userId,
      instrumentId: event.instrumentId,
      occurredAt: event.occurredAt,
    });
  });
}
