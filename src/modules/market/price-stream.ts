import type { Deps } from "../context.js";

/**
 * One price stream for several instances (REDIS_URL): the engine that holds the lease ticks and
 * broadcasts each tick as `PricesTicked`; every other engine applies it, so that all instances
 * serve the same rates, candles and steps. Alone (no REDIS_URL) there is nothing to share.
 * Registered before the triggers, so that a tick is broadcast before its closes run.
 */
export function registerPriceStream(deps: Deps): void {
  if (!deps.config.redisUrl) return;
  const market = deps.market;
  market.onTick(async (quotes, tick) => {
    // Sent even when nothing moved, so that every instance stays on the same step.
    if (tick.applied) return;
    await deps.bus.publish([
      {
        type: "PricesTicked",
        engineId: market.id,
        step: tick.step,
        quotes,
        occurredAt: deps.clock.now().toISOString(),
      },
    ]);
  });
  deps.bus.subscribeEverywhere("PricesTicked", async (event) => {
    // The memory side of the bus hands the publisher its own broadcast too.
    if (event.engineId === market.id) return;
    await market.apply(event.step, event.quotes);
  });
}
