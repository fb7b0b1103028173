import type { Logger } from "pino";
import { MemoryRateLimitStore } from "./memory.js";
import { RedisRateLimitStore } from "./redis.js";
import type { RateLimitStore } from "./store.js";

export type { Consumption, LimitRequest, LimitState, RateLimitStore } from "./store.js";

/** Redis when a URL is configured (shared by every instance), else this process's memory. */
export async function createRateLimitStore(options: {
  redisUrl: string | undefined;
  log: Logger;
  now: () => number;
}): Promise<RateLimitStore> {
  if (!options.redisUrl) return new MemoryRateLimitStore(options.now);
  return RedisRateLimitStore.connect({ url: options.redisUrl, log: options.log, now: options.now });
}
