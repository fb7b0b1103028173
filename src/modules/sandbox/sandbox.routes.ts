import type { App } from "../../http/app-type.js";
import type { Deps } from "../context.js";
import { registerAccountControls } from "./accounts.routes.js";
import { registerClockControls } from "./clock.routes.js";
import { registerFaultControls } from "./faults.routes.js";
import { registerMarketControls } from "./market.routes.js";
import { sandboxRouteKit } from "./route-kit.routes.js";
import { registerTraderControls } from "./traders.routes.js";
import { registerWorldControls } from "./world.routes.js";

export { FAULT_HEADER, registerFaultInjection } from "./fault-injection.routes.js";

/** The sandbox's controls (decision 0148), one registrar per family; absent when SANDBOX=off. */
export function registerSandboxRoutes(app: App, deps: Deps): void {
  if (!deps.sandbox) return;
  const kit = sandboxRouteKit(app, deps);
  registerMarketControls(kit);
  registerClockControls(kit);
  registerAccountControls(kit);
  registerWorldControls(kit);
  registerFaultControls(kit);
  registerTraderControls(kit);
}
