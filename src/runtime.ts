import pino, { type Logger } from "pino";
import { LOG_REDACT } from "./app.js";
import type { Config } from "./config.js";
import { type Clock, systemClock } from "./core/clock.js";
import type { EventBus } from "./core/events.js";
import { MemoryEventBus } from "./infra/bus/memory.js";
import { eventsChannel, RedisEventBus } from "./infra/bus/redis.js";
import { openDatabase } from "./infra/db/database.js";
import { migrateToLatest } from "./infra/db/migrate.js";
import { LocalLease } from "./infra/lease/lease.js";
import { RedisLease } from "./infra/lease/redis.js";
import type { Deps } from "./modules/context.js";
import { MarketEngine } from "./modules/market/engine.js";
import { registerPriceStream } from "./modules/market/price-stream.js";
import { registerNotificationSubscribers } from "./modules/notifications/notifications.subscribers.js";
import { registerTradingTriggers } from "./modules/trading/triggers.js";
import { registerWatchlistSubscribers } from "./modules/watchlists/watchlists.subscribers.js";

export interface RuntimeOptions {
  log?: Logger;
  clock?: Clock;
  /** Apply migrations while opening (the default; `migrate` runs them explicitly). */
  migrate?: boolean;
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, redact: { paths: LOG_REDACT, censor: "[redacted]" } });
}

/** Opens the store, brings its schema up to date and wires the event subscribers. */
export async function createDeps(config: Config, options: RuntimeOptions = {}): Promise<Deps> {
  const log = options.log ?? createLogger(config);
  const db = await openDatabase(config.database);
  try {
    if (options.migrate !== false) await migrateToLatest(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  let bus: EventBus;
  try {
    bus = config.redisUrl
      ? await RedisEventBus.connect(config.redisUrl, log, eventsChannel(config.redisNamespace))
      : new MemoryEventBus((error, event) => log.error({ err: error, event: event.type }, "event handler failed"));
  } catch (error) {
    await db.close();
    throw new Error(
      `Cannot reach Redis at REDIS_URL for the event bus: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const clock = options.clock ?? systemClock;
  // With several instances one engine ticks: the holder of a lease a few ticks long.
  const leadership = config.redisUrl
    ? await RedisLease.open(
        config.redisUrl,
        config.market.leaseKey ?? marketLeaseKey(config.redisNamespace),
        marketLeaseMs(config.market.tickMs),
        log,
      )
    : new LocalLease();
  const market = new MarketEngine(config.market, clock, {
    onError: (error) => log.error({ err: error }, "market tick failed"),
    leadership,
  });
  const deps: Deps = { db, bus, clock, config, log, market };
  registerPriceStream(deps);
  registerNotificationSubscribers(deps);
  registerTradingTriggers(deps);
  registerWatchlistSubscribers(deps);
  return deps;
}

/** The lease of a deployment: `<REDIS_NAMESPACE>:market:leader` unless MARKET_LEASE_KEY names another. */
export const marketLeaseKey = (namespace: string) => `${namespace}:market:leader`;

/** The leader renews every tick; a follower takes over once three ticks (at least 1 s) passed unrenewed. */
export const marketLeaseMs = (tickMs: number) => Math.max(3 * tickMs, 1000);

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.market.stop();
  await deps.bus.close();
  await deps.db.close();
}
