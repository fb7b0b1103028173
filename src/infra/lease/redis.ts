import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Lease } from "./lease.js";

/**
 * Take-or-renew in one atomic step: the holder extends its own lease; a free key is taken; a key
 * held by another instance is left alone. (GET + SET in Lua: no other command runs in between.)
 */
const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

/** Deletes the key only if this holder still has it (never someone else's lease). */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * A lease kept in Redis (`SET key holder PX ttl`, renewed by its holder only). When Redis cannot
 * be reached the lease counts as not held: no instance leads until Redis answers again, so two
 * instances never lead at once (docs/decisions/0050-one-price-stream.md).
 */
export class RedisLease implements Lease {
  readonly shared = true;
  readonly holderId = randomUUID();
  private readonly client: Redis;
  private closed = false;
  private healthy = true;

  private constructor(
    url: string,
    readonly key: string,
    readonly ttlMs: number,
    private readonly log: Logger,
    private readonly countError: () => void,
  ) {
    this.client = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      // A Redis that never answers must not hold the tick loop: the lease counts as not held
      // (no instance leads) until Redis answers again (decision 0107). Half the lease: an answer
      // later than that renews a lease about to lapse; a shorter bound lost leadership to a busy
      // machine's scheduling alone.
      commandTimeout: Math.max(250, Math.floor(ttlMs / 2)),
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // Reported by acquire(), once per outage; counted each time.
    this.client.on("error", () => countError());
  }

  /** Connects (a Redis that is down now is retried in the background; the lease is not held meanwhile). */
  static async open(
    url: string,
    key: string,
    ttlMs: number,
    log: Logger,
    countError: () => void = () => {},
  ): Promise<RedisLease> {
    const lease = new RedisLease(url, key, ttlMs, log, countError);
    await lease.client.connect().catch(() => {});
    return lease;
  }

  async acquire(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const held = (await this.client.eval(ACQUIRE, 1, this.key, this.holderId, String(this.ttlMs))) === 1;
      if (!this.healthy) this.log.info({ key: this.key }, "market lease: Redis reachable again");
      this.healthy = true;
      return held;
    } catch (error) {
      this.countError();
      if (this.healthy) this.log.warn({ err: error, key: this.key }, "market lease: Redis unavailable; not leading");
      this.healthy = false;
      return false;
    }
  }

  async release(): Promise<void> {
    if (this.closed) return;
    await this.client.eval(RELEASE, 1, this.key, this.holderId).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.release();
    this.closed = true;
    this.client.disconnect();
  }
}
