import { randomBytes } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import pino, { type Logger } from "pino";
import { LOG_REDACT } from "./app.js";
import { type Config, DEFAULT_DATABASE, MAKE_A_KEY } from "./config.js";
import { type Clock, systemClock } from "./core/clock.js";
import type { EventBus } from "./core/events.js";
import { SECRETS_KEY_BYTES, type SecretBox } from "./core/secrets.js";
import { MemoryEventBus } from "./infra/bus/memory.js";
import { openDatabase } from "./infra/db/database.js";
import { migrateToLatest } from "./infra/db/migrate.js";
import { LocalLease } from "./infra/lease/lease.js";
import { DiskMediaStore } from "./infra/media/media-store.js";
import { S3MediaStore } from "./infra/media/s3-media-store.js";
import { Metrics } from "./infra/metrics.js";
import { MemoryPresence } from "./infra/presence/presence.js";
import { createRateLimitStore } from "./infra/ratelimit/index.js";
import { GENERATED_KEY_FILE, loadOrCreateKeyFile } from "./infra/secrets/key-file.js";
import { createSecretBox } from "./infra/secrets/secret-box.js";
import type { Deps } from "./modules/context.js";
import { registerMirrorEngine } from "./modules/copy-trading/mirrors/mirror-engine.js";
import { MarketEngine } from "./modules/market/engine.js";
import { marketHours as makeMarketHours } from "./modules/market/hours/market-hours.js";
import { registerPriceStream } from "./modules/market/price-stream.js";
import { registerNotificationSubscribers } from "./modules/notifications/notifications.subscribers.js";
import { NotificationPollCache } from "./modules/notifications/poll-cache.js";
import { createExternalKeys } from "./modules/oauth/access-tokens.js";
import { KeyStore, registerSigningKeySubscribers } from "./modules/oauth/signing-keys.js";
import { registerPeopleSubscribers } from "./modules/people/people.subscribers.js";
import { PeopleSearchCache } from "./modules/people/search/search-cache.js";
import { createAlertWatch, registerAlertWatch } from "./modules/price-alerts/alert-watch.js";
import { RealtimeHub, registerPositionUpdates, registerRealtimeFeeds } from "./modules/realtime/hub.js";
import { PositionUpdates } from "./modules/realtime/position-updates.js";
import { createSandboxState, sandboxClockOver } from "./modules/sandbox/sandbox-state.js";
import { registerTradePostSubscribers } from "./modules/social/trade-posts/trade-posts.subscribers.js";
import { createEntryOrderWatch, registerEntryOrderWatch } from "./modules/trading/entry-orders/entry-watch.js";
import { registerExitChanges } from "./modules/trading/positions/change-exits.js";
import { createTriggerWatch, registerTradingMetrics, registerTradingTriggers } from "./modules/trading/triggers.js";
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
  // With the sandbox on, an adjustable clock over the given one (decision 0148).
  const clock = sandboxClockOver(config.sandbox.enabled, options.clock ?? systemClock);
  const opened: { close(): Promise<void> }[] = [];
  // Made first: the Redis clients count their errors in it.
  const metrics = new Metrics(config.metrics.enabled);
  try {
    const db = await openDatabase(config.database);
    opened.push(db);
    if (options.migrate !== false) await migrateToLatest(db);
    const secrets = resolveSecretBox(config, log);
    if (db.poolStats()) metrics.watchPool(() => db.poolStats() ?? { total: 0, idle: 0, waiting: 0 });
    const bus = await connectBus(config, log, metrics.redisErrorCounter("bus"));
    opened.push(bus);
    // With several instances one engine ticks: the holder of a lease a few ticks long.
    // Redis's modules (ioredis) are loaded only when REDIS_URL is set: a few MB of heap otherwise held (0196).
    const leadership = config.redisUrl
      ? await (await import("./infra/lease/redis.js")).RedisLease.open(
          config.redisUrl,
          config.market.leaseKey ?? marketLeaseKey(config.redisNamespace),
          marketLeaseMs(config.market.tickMs),
          log,
          metrics.redisErrorCounter("lease"),
        )
      : new LocalLease();
    opened.push(leadership);
    // Shared by every app built on these deps; Redis only when limits are on.
    const rateLimits = await createRateLimitStore({
      redisUrl: config.rateLimits.enabled ? config.redisUrl : undefined,
      keyPrefix: `${config.redisNamespace}:rl:`,
      log,
      now: () => clock.now().getTime(),
      countError: metrics.redisErrorCounter("ratelimit"),
    });
    opened.push(rateLimits);
    // The per-user cap on real-time sockets counts every instance's (Redis) or this one's.
    const presence = config.redisUrl
      ? await (await import("./infra/presence/redis.js")).RedisPresence.open(
          config.redisUrl,
          `${config.redisNamespace}:rt:user:`,
          PRESENCE_TTL_MS,
          log,
        )
      : new MemoryPresence();
    opened.push(presence);
    const tickLag = metrics.marketTickLag;
    const marketHours = makeMarketHours(config.marketHours.mode);
    const market = new MarketEngine(config.market, clock, {
      isOpen: (instrument, at) => instrument.exchangeId === undefined || marketHours.isOpen(instrument.exchangeId, at),
      onError: (error) => log.error({ err: error }, "market tick failed"),
      leadership,
      onTickLag: (lateMs) => tickLag.observe(lateMs / 1000),
    });
    const ticked = metrics.marketTicks.labels("ticked");
    const applied = metrics.marketTicks.labels("applied");
    market.onTick((_quotes, tick) => {
      (tick.applied ? applied : ticked).inc();
    });
    const deps: Deps = {
      db,
      bus,
      clock,
      config,
      log,
      market,
      marketHours,
      rateLimits,
      secrets,
      metrics,
      triggers: createTriggerWatch(),
      entryOrders: createEntryOrderWatch(),
      alerts: createAlertWatch(),
      notificationPolls: NotificationPollCache.listening(bus),
      peopleSearches: new PeopleSearchCache(),
      instrumentCache: new Map(),
      signingKeys: new KeyStore(db, clock, secrets),
      externalKeys: createExternalKeys(config),
      trending: {},
      realtime: new RealtimeHub(presence),
      positionUpdates: new PositionUpdates(),
      media: config.media.s3 ? new S3MediaStore(config.media.s3) : new DiskMediaStore(config.media.dir),
      sandbox: createSandboxState(clock, market, config.market),
    };
    registerPriceStream(deps);
    // Before the triggers: a tick's rates reach the sockets before the closes it causes.
    registerRealtimeFeeds(deps);
    registerSigningKeySubscribers(deps);
    registerNotificationSubscribers(deps);
    registerTradingTriggers(deps);
    registerEntryOrderWatch(deps);
    registerExitChanges(deps);
    registerAlertWatch(deps);
    registerTradingMetrics(deps);
    registerMirrorEngine(deps);
    registerWatchlistSubscribers(deps);
    registerTradePostSubscribers(deps);
    registerPeopleSubscribers(deps);
    // After the triggers: a trailing stop's new level is known.
    registerPositionUpdates(deps);
    return deps;
  } catch (error) {
    for (const resource of opened.reverse()) await resource.close().catch(() => {});
    throw error;
  }
}

/**
 * Where a server that was given no secrets key keeps the one it generates (never in production,
 * where config refuses to start without one): beside the SQLite file; ./data for PostgreSQL; none
 * for a `:memory:` store, which outlives nothing, so its key lives in memory too.
 */
export function generatedKeyPath(config: Config): string | undefined {
  const { kind, url } = config.database;
  if (kind === "sqlite" && url === ":memory:") return undefined;
  const folder = kind === "sqlite" ? dirname(url) : dirname(DEFAULT_DATABASE);
  return join(folder, GENERATED_KEY_FILE);
}

/** The deployment's secrets key (0105): configured, or outside production generated once and reused. */
export function resolveSecretBox(config: Config, log: Logger): SecretBox {
  const { current, previous } = config.secrets;
  if (current) {
    log.info(
      { secretsKeyId: current.id, previousSecretsKeyId: previous?.id },
      `secrets key ${current.id} from ${current.source}${previous ? `; previous key ${previous.id} from ${previous.source}` : ""}`,
    );
    return createSecretBox(current.key, previous?.key);
  }
  if (config.production) throw new Error(`SECRETS_KEY or SECRETS_KEY_FILE must be set in production: ${MAKE_A_KEY}`);
  const path = generatedKeyPath(config);
  if (!path) {
    log.info("secrets key: a new one in memory for this :memory: store (SECRETS_KEY is not set)");
    return createSecretBox(randomBytes(SECRETS_KEY_BYTES));
  }
  const file = loadOrCreateKeyFile(path);
  const box = createSecretBox(file.key);
  const shown = resolve(path);
  if (file.created) {
    log.info(
      { secretsKeyId: box.keyId, path: shown },
      `SECRETS_KEY is not set: generated secrets key ${box.keyId} into ${shown} (owner-only); it is used from now on. Back it up with the store; in production set SECRETS_KEY or SECRETS_KEY_FILE`,
    );
  } else {
    log.info(
      { secretsKeyId: box.keyId, path: shown },
      `SECRETS_KEY is not set: using secrets key ${box.keyId} generated earlier in ${shown}`,
    );
  }
  if (file.looseMode !== undefined) {
    log.warn(
      { path: shown, mode: file.looseMode.toString(8) },
      `the secrets key file ${shown} may be read by others (mode ${file.looseMode.toString(8)}): chmod 600 it`,
    );
  }
  return box;
}

async function connectBus(config: Config, log: Logger, countError: () => void): Promise<EventBus> {
  if (!config.redisUrl) {
    return new MemoryEventBus((error, event) => log.error({ err: error, event: event.type }, "event handler failed"));
  }
  try {
    const { eventsChannel, RedisEventBus } = await import("./infra/bus/redis.js");
    return await RedisEventBus.connect(config.redisUrl, log, eventsChannel(config.redisNamespace), countError);
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
