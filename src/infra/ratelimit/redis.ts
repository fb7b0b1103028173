import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { MemoryRateLimitStore } from "./memory.js";
import type { Consumption, LimitRequest, LimitState, RateLimitStore } from "./store.js";

/**
 * Checks every quota, then counts in all of them or in none: one atomic round trip, so any
 * number of instances share one budget exactly. Windows run on Redis's clock (PTTL), never
 * on the instances' clocks. ARGV holds max and window (ms) per key.
 */
const CONSUME = `
local n = #KEYS
local counts, ttls, fresh = {}, {}, {}
local admitted = 1
for i = 1, n do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    count = 0
    ttl = tonumber(ARGV[2 * i])
    fresh[i] = true
  end
  counts[i] = count
  ttls[i] = ttl
  if count >= tonumber(ARGV[2 * i - 1]) then admitted = 0 end
end
local reply = { admitted }
for i = 1, n do
  if admitted == 1 then
    if fresh[i] then
      redis.call('SET', KEYS[i], 1, 'PX', ARGV[2 * i])
      counts[i] = 1
    else
      counts[i] = redis.call('INCR', KEYS[i])
    end
  end
  reply[2 * i] = counts[i]
  reply[2 * i + 1] = ttls[i]
end
return reply
`;
/** How often a degraded instance tries a connected but failing Redis again. */
const PROBE_INTERVAL_MS = 1000;
const CONSUME_SHA = createHash("sha1").update(CONSUME).digest("hex");

export interface RedisStoreOptions {
  url: string;
  log: Logger;
  /** Used only while Redis is unreachable (per-instance limits). */
  now?: () => number;
  /** A hung Redis is given up on after this long; the request is then limited locally. */
  commandTimeoutMs?: number;
  /** How long `connect` waits for the first connection before serving degraded. */
  connectTimeoutMs?: number;
  keyPrefix?: string;
  /** Told of every connection or command error (the metrics count them). */
  countError?: () => void;
}

/**
 * The shared store. When Redis is unreachable it fails open to per-instance limits: each
 * instance keeps enforcing every quota with its own memory counters, logs the outage once and
 * goes back to the shared counters by itself as soon as Redis answers again (decision 0022).
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = "redis" as const;
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimitStore;
  private readonly log: Logger;
  private readonly prefix: string;
  private readonly countError: () => void;
  private degraded = false;
  /** While degraded on a live but failing connection, Redis is tried again only after this time. */
  private probeAt = 0;

  private constructor(options: RedisStoreOptions) {
    this.log = options.log;
    this.prefix = options.keyPrefix ?? "sta:rl:";
    this.countError = options.countError ?? (() => {});
    this.fallback = new MemoryRateLimitStore(options.now);
    this.redis = new Redis(options.url, {
      // Fail fast while disconnected instead of queueing: the request is limited locally.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 1000,
      connectTimeout: options.connectTimeoutMs ?? 2000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
      lazyConnect: true,
    });
    // ioredis reports every failed reconnect; the outage itself is logged once in consume.
    this.redis.on("error", (err) => {
      this.countError();
      this.log.debug({ err }, "rate limit store: redis connection error");
    });
  }

  /** Connects (waiting at most connectTimeoutMs); an unreachable Redis leaves the store degraded. */
  static async connect(options: RedisStoreOptions): Promise<RedisRateLimitStore> {
    const store = new RedisRateLimitStore(options);
    try {
      await store.redis.connect();
    } catch (err) {
      store.markDegraded(err);
    }
    return store;
  }

  get isDegraded(): boolean {
    return this.degraded;
  }

  async consume(caller: string, limits: readonly LimitRequest[]): Promise<Consumption> {
    if (this.redis.status !== "ready") {
      this.markDegraded(new Error(`redis connection is ${this.redis.status}`));
      return this.fallback.consumeNow(caller, limits);
    }
    // A hung Redis costs one request the command timeout per probe interval, not every request.
    if (this.degraded && Date.now() < this.probeAt) return this.fallback.consumeNow(caller, limits);
    try {
      const reply = await this.run(caller, limits);
      if (this.degraded) {
        this.degraded = false;
        this.log.info("rate limit store: redis reachable again; shared limits resumed");
      }
      return parse(reply, limits.length);
    } catch (err) {
      this.countError();
      this.probeAt = Date.now() + PROBE_INTERVAL_MS;
      this.markDegraded(err);
      return this.fallback.consumeNow(caller, limits);
    }
  }

  private async run(caller: string, limits: readonly LimitRequest[]): Promise<unknown> {
    // The hash tag keeps one caller's keys in one cluster slot, as a multi-key script needs.
    const keys = limits.map((l) => `${this.prefix}{${caller}}:${l.pool}`);
    const args = limits.flatMap((l) => [l.max, l.windowMs]);
    try {
      return await this.redis.evalsha(CONSUME_SHA, keys.length, ...keys, ...args);
    } catch (err) {
      // A new or restarted Redis does not know the script yet: EVAL sends it whole and caches it.
      if (!String((err as Error).message).startsWith("NOSCRIPT")) throw err;
      return this.redis.eval(CONSUME, keys.length, ...keys, ...args);
    }
  }

  private markDegraded(err: unknown): void {
    if (this.degraded) return;
    this.degraded = true;
    this.log.warn(
      { err },
      "rate limit store: redis unreachable; limiting per instance (fail open to local counters) until it returns",
    );
  }

  async close(): Promise<void> {
    await this.fallback.close();
    this.redis.disconnect();
  }
}

function parse(reply: unknown, n: number): Consumption {
  const values = reply as number[];
  const states: LimitState[] = [];
  for (let i = 1; i <= n; i++) states.push({ count: Number(values[2 * i - 1]), resetMs: Number(values[2 * i]) });
  return { admitted: values[0] === 1, states };
}
