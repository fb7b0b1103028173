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
import { MemoryPresence } from "./infra/presence/presence.js";
import { RedisPresence } from "./infra/presence/redis.js";
import { createRateLimitStore } from "./infra/ratelimit/index.js";
import type { Deps } from "./modules/context.js";
import { MarketEngine } from "./modules/market/engine.js";
import { registerPriceStream } from "./modules/market/price-stream.js";
import { registerNotificationSubscribers } from "./modules/notifications/notifications.subscribers.js";
import { createExternalKeys } from "./modules/oauth/access-tokens.js";
import { KeyStore, registerSigningKeySubscribers } from "./modules/oauth/signing-keys.js";
import { RealtimeHub, registerPositionUpdates, registerRealtimeFeeds } from "./modules/realtime/hub.js";
import { PositionUpdates } from "./modules/realtime/position-updates.js";
import { createTriggerWatch, registerTradingTriggers } from "./modules/trading/triggers.js";
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

/**
 * Makes everything a process keeps beside its HTTP layer, in one place: opens the store and
 * brings its schema up to date, connects the event bus, the market's lease and the rate-limit
 * counters, makes each module's in-memory state and wires the event subscribers. What was opened
 * before a step that fails is closed again.
 */
export async function createDeps(config: Config, options: RuntimeOptions = {}): Promise<Deps> {
  const log = options.log ?? createLogger(config);
  const clock = options.clock ?? systemClock;
  const opened: { close(): Promise<void> }[] = [];
  try {
    const db = await openDatabase(config.database);
    opened.push(db);
    if (options.migrate !== false) await migrateToLatest(db);
    const bus = await connectBus(config, log);
    opened.push(bus);
    // With several instances one engine ticks: the holder of a lease a few ticks long.
    const leadership = config.redisUrl
      ? await RedisLease.open(
          config.redisUrl,
          config.market.leaseKey ?? marketLeaseKey(config.redisNamespace),
          marketLeaseMs(config.market.tickMs),
          log,
        )
      : new LocalLease();
    opened.push(leadership);
    // Shared by every app built on these deps; Redis only when limits are on.
    const rateLimits = await createRateLimitStore({
      redisUrl: config.rateLimits.enabled ? config.redisUrl : undefined,
      keyPrefix: `${config.redisNamespace}:rl:`,
      log,
      now: () => clock.now().getTime(),
    });
    opened.push(rateLimits);
    // The per-user cap on real-time sockets counts every instance's (Redis) or this one's.
    const presence = config.redisUrl
      ? await RedisPresence.open(config.redisUrl, `${config.redisNamespace}:rt:user:`, PRESENCE_TTL_MS, log)
      : new MemoryPresence();
    opened.push(presence);
    const market = new MarketEngine(config.market, clock, {
      onError: (error) => log.error({ err: error }, "market tick failed"),
      leadership,
    });
    const deps: Deps = {
      db,
      bus,
      clock,
      config,
      log,
      market,
      rateLimits,
      triggers: createTriggerWatch(),
      instrumentCache: new Map(),
      signingKeys: new KeyStore(db, clock),
      externalKeys: createExternalKeys(config),
      trending: {},
      realtime: new RealtimeHub(presence),
      positionUpdates: new PositionUpdates(),
    };
    registerPriceStream(deps);
    // Before the triggers: a tick's rates reach the sockets before the closes it causes.
    registerRealtimeFeeds(deps);
    registerSigningKeySubscribers(deps);
    registerNotificationSubscribers(deps);
    registerTradingTriggers(deps);
    registerWatchlistSubscribers(deps);
    // After the triggers: a trailing stop's new level is known.
    registerPositionUpdates(deps);
    return deps;
  } catch (error) {
    for (const resource of opened.reverse()) await resource.close().catch(() => {});
    throw error;
  }
}

async function connectBus(config: Config, log: Logger): Promise<EventBus> {
  if (!config.redisUrl) {
    return new MemoryEventBus((error, event) => log.error({ err: error, event: event.type }, "event handler failed"));
  }
  try {
    return await RedisEventBus.connect(config.redisUrl, log, eventsChannel(config.redisNamespace));
  } catch (error) {
    throw new Error(
      `Cannot reach Redis at REDIS_URL for the event bus: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A crashed instance's real-time sockets stop counting against their users' caps after this. */
const PRESENCE_TTL_MS = 30_000;

/** The lease of a deployment: `<REDIS_NAMESPACE>:market:leader` unless MARKET_LEASE_KEY names another. */
export const marketLeaseKey = (namespace: string) => `${namespace}:market:leader`;

/** The leader renews every tick; a follower takes over once three ticks (at least 1 s) passed unrenewed. */
export const marketLeaseMs = (tickMs: number) => Math.max(3 * tickMs, 1000);

/** Closes what createDeps opened, the market first (it stops ticking and gives up its lease). */
export async function closeDeps(deps: Deps): Promise<void> {
  await deps.market.stop();
  await deps.realtime.close();
  await deps.rateLimits.close();
  await deps.bus.close();
  await deps.db.close();
}
