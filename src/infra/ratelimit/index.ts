import type { Logger } from "pino";
import { MemoryRateLimitStore } from "./memory.js";
import type { RateLimitStore } from "./store.js";

export type { Consumption, LimitRequest, LimitState, RateLimitStore } from "./store.js";

/** Redis when a URL is configured (shared by every instance), else this process's memory. */
export async function createRateLimitStore(options: {
  redisUrl: string | undefined;
  /** Prefix of the counters' keys in Redis, e.g. `sta:rl:`. */
  keyPrefix: string;
  log: Logger;
  now: () => number;
  /** Told of every Redis error (the metrics count them). */
  countError?: () => void;
}): Promise<RateLimitStore> {
  if (!options.redisUrl) return new MemoryRateLimitStore(options.now);
  // Loaded only when used: ioredis is a few MB of heap (docs/decisions/0196).
  const { RedisRateLimitStore } = await import("./redis.js");
  return RedisRateLimitStore.connect({
    url: options.redisUrl,
    keyPrefix: options.keyPrefix,
    log: options.log,
    now: options.now,
    ...(options.countError ? { countError: options.countError } : {}),
  });
}
