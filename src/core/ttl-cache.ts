import { LRUCache } from "lru-cache";
import { type Clock, systemClock } from "./clock.js";

/**
 * A bounded map whose entries expire once more than `ttlMs` has passed: lru-cache (docs/decisions/0095) behind the
 * three calls the authenticators make. The least recently used entry goes first when full. A ttl
 * of 0 disables it: nothing is stored.
 */
export class TtlCache<V extends {}> {
  private readonly lru: LRUCache<string, V> | undefined;

  constructor(ttlMs: number, maxEntries: number, clock: Clock) {
    if (ttlMs <= 0) return;
    this.lru = new LRUCache<string, V>({
      max: maxEntries,
      ttl: ttlMs,
      // The system clock: lru-cache's own monotonic timer, read at most once a millisecond. Any
      // other clock (a test's) is read at every check, so that moving it expires entries at once.
      ...(clock === systemClock ? {} : { perf: { now: () => clock.now().getTime() }, ttlResolution: 0 }),
    });
  }

  get(key: string): V | undefined {
    return this.lru?.get(key);
  }

  /**
   * The entry even when its time ran out, and whether it had (`stale`): the caller may confirm a
   * stale entry some other way and `set` it again. A stale entry is forgotten once handed over.
   */
  getAllowingStale(key: string): { value: V; stale: boolean } | undefined {
    if (!this.lru) return undefined;
    const status: LRUCache.Status<string, V> = {};
    const value = this.lru.get(key, { allowStale: true, status });
    return value === undefined ? undefined : { value, stale: status.get === "stale" };
  }

  set(key: string, value: V): void {
    this.lru?.set(key, value);
  }

  /** Drops every entry whose value matches (a revocation: rare, so a full scan). */
  evictWhere(match: (value: V) => boolean): void {
    if (!this.lru) return;
    const doomed: string[] = [];
    // forEach walks the entries about twice as fast as the entries() generator.
    this.lru.forEach((value, key) => {
      if (match(value)) doomed.push(key);
    });
    for (const key of doomed) this.lru.delete(key);
  }
}
