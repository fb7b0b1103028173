import type { Deps } from "../../context.js";
import { publishTrade } from "./publish-trade.js";

/** Trade posts follow the demo positions their owners open and close. Runs after commit, once. */
export function registerTradePostSubscribers(deps: Deps): void {
  deps.bus.subscribe("PositionOpened", (event) => publishTrade(deps, event));
  deps.bus.subscribe("PositionClosed", (event) => publishTrade(deps, event));
}
