import { Redis } from "ioredis";
import type { Logger } from "pino";
import { MemoryPresence, type Presence } from "./presence.js";

/**
 * One sorted set per user: member = connection, score = when its claim lapses. Expired claims
 * (an instance that died) are dropped first, then the set is counted and the claim added, in one
 * atomic step.
 */
const CLAIM = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * The per-user socket count of every instance, in Redis. Each instance renews its claims every
 * third of `ttlMs`, so a crashed instance's sockets stop counting within `ttlMs`. While Redis
 * cannot be reached, each instance counts its own sockets (the cap then holds per instance).
 */
export class RedisPresence implements Presence {
  private readonly client: Redis;
  private readonly local = new MemoryPresence();
  private readonly mine = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private healthy = true;

  private constructor(
    url: string,
    private readonly prefix: string,
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {
    this.client = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    this.client.on("error", () => {});
    this.timer = setInterval(() => void this.renew(), Math.max(100, Math.floor(ttlMs / 3)));
    this.timer.unref();
  }

  static async open(url: string, prefix: string, ttlMs: number, log: Logger): Promise<RedisPresence> {
    const presence = new RedisPresence(url, prefix, ttlMs, log);
    await presence.client.connect().catch(() => {});
    return presence;
  }

  private key = (userId: string) => `${this.prefix}${userId}`;

  async claim(userId: string, connectionId: string, cap: number): Promise<boolean> {
    try {
      const now = Date.now();
      const ok = await this.client.eval(
        CLAIM,
        1,
        this.key(userId),
        String(now),
        String(now + this.ttlMs),
        connectionId,
        String(cap),
        String(this.ttlMs),
      );
      this.up();
      if (ok !== 1) return false;
      this.mine.set(connectionId, userId);
      // Also counted here, for the time Redis cannot be reached.
      await this.local.claim(userId, connectionId, Number.MAX_SAFE_INTEGER);
      return true;
    } catch (error) {
      this.down(error);
      return this.local.claim(userId, connectionId, cap);
    }
  }

  async release(userId: string, connectionId: string): Promise<void> {
    this.mine.delete(connectionId);
    await this.local.release(userId, connectionId);
    await this.client.zrem(this.key(userId), connectionId).catch(() => {});
  }

  private async renew(): Promise<void> {
    if (this.mine.size === 0) return;
    const expiry = String(Date.now() + this.ttlMs);
    const pipeline = this.client.pipeline();
    for (const [connectionId, userId] of this.mine) {
      pipeline.zadd(this.key(userId), expiry, connectionId);
      pipeline.pexpire(this.key(userId), this.ttlMs);
    }
    await pipeline.exec().then(
      () => this.up(),
      (error) => this.down(error),
    );
  }

  private up(): void {
    if (!this.healthy) this.log.info("realtime presence: Redis reachable again");
    this.healthy = true;
  }

  private down(error: unknown): void {
    if (this.healthy) {
      this.log.warn({ err: error }, "realtime presence: Redis unavailable; connections are capped per instance");
    }
    this.healthy = false;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const [connectionId, userId] of this.mine)
      await this.client.zrem(this.key(userId), connectionId).catch(() => {});
    this.mine.clear();
    this.client.disconnect();
  }
}
