import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/*
 * The Prometheus metrics of one process's deps (docs/decisions/0106). Every `Deps` has its own
 * registry (never prom-client's global one), so several apps or instances in one process count
 * apart. The metrics that several layers feed (HTTP, the limiter, Redis, the audit trail, the
 * market) are made here, in one catalogue; a module with state of its own registers a gauge read at
 * scrape time on `registry` (see `gauge`), as trading does for open positions and armed triggers.
 */

/** Every metric's name starts with it, the process's default metrics included. */
export const METRIC_PREFIX = "sta_";

/** Seconds; an API answer is usually well under 10 ms, a slow one counts in the upper buckets. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds a tick starts after it was due: a healthy event loop keeps it within a few ms. */
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Where Redis is used: the event bus, the market lease, the rate-limit counters. */
export type RedisComponent = "bus" | "lease" | "ratelimit";

/** What the metrics read from a social read cache at scrape time. */
export interface ReadCacheStats {
  stats(): { entries: number; bytes: number; hits: number; misses: number };
}

/** The database pool's state (PostgreSQL); SQLite has no pool. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export class Metrics {
  /** This deps' registry: `GET /metrics` exposes it. Register new metrics with `registers: [registry]`. */
  readonly registry = new Registry();
  /** Requests answered, per method, route pattern (never the raw URL) and status. */
  readonly httpRequests: Counter<"method" | "route" | "status">;
  /** Time from the request's arrival to the end of its answer, in seconds. */
  readonly httpDuration: Histogram<"method" | "route" | "status">;
  /** 429s of the rate limiter, per exhausted pool. */
  readonly rateLimitRejections: Counter<"pool">;
  /** Errors seen on a Redis connection or command, per component. */
  readonly redisErrors: Counter<"component">;
  /** Security events recorded in the audit trail, per action and outcome. */
  readonly auditEvents: Counter<"action" | "outcome">;
  /** Price ticks: `ticked` here (the leader, or alone), `applied` from the leader's broadcast. */
  readonly marketTicks: Counter<"kind">;
  /** How late each timed tick started against its schedule, in seconds. */
  readonly marketTickLag: Histogram;
  private readonly readCaches = new Set<ReadCacheStats>();

  /** `enabled`: METRICS=on. The process's default metrics are collected only then. */
  constructor(readonly enabled: boolean) {
    const registers = [this.registry];
    const p = METRIC_PREFIX;
    this.httpRequests = new Counter({
      name: `${p}http_requests_total`,
      help: "HTTP requests answered, by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.httpDuration = new Histogram({
      name: `${p}http_request_duration_seconds`,
      help: "Time to answer an HTTP request, from its arrival to the end of the answer",
      labelNames: ["method", "route", "status"],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.rateLimitRejections = new Counter({
      name: `${p}rate_limit_rejections_total`,
      help: "Requests refused with 429, by the pool that was exhausted",
      labelNames: ["pool"],
      registers,
    });
    this.redisErrors = new Counter({
      name: `${p}redis_errors_total`,
      help: "Errors of a Redis connection or command (a connection error repeats per reconnect attempt)",
      labelNames: ["component"],
      registers,
    });
    this.auditEvents = new Counter({
      name: `${p}audit_events_total`,
      help: "Security events recorded in the audit trail, by action and outcome",
      labelNames: ["action", "outcome"],
      registers,
    });
    this.marketTicks = new Counter({
      name: `${p}market_ticks_total`,
      help: "Price ticks: ticked by this instance, or applied from the leading instance",
      labelNames: ["kind"],
      registers,
    });
    this.marketTickLag = new Histogram({
      name: `${p}market_tick_lag_seconds`,
      help: "How late a timed price tick started against its schedule",
      buckets: LAG_BUCKETS,
      registers,
    });
    const caches = this.readCaches;
    const sum = (key: "entries" | "bytes" | "hits" | "misses") => {
      let total = 0;
      for (const cache of caches) total += cache.stats()[key];
      return total;
    };
    // Hits and misses are counted by the caches themselves (plain numbers, nothing on the hit
    // path); the counters take their sum at scrape time.
    const cacheCounter = (key: "hits" | "misses", help: string) =>
      new Counter({
        name: `${p}read_cache_${key}_total`,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(sum(key));
        },
      });
    cacheCounter("hits", "Social reads answered from the read cache");
    cacheCounter("misses", "Social reads computed because the read cache had no current answer");
    this.gauge("read_cache_bytes", "Bytes of answers held by the social read cache", () => sum("bytes"));
    this.gauge("read_cache_entries", "Answers held by the social read cache", () => sum("entries"));
    if (enabled) collectDefaultMetrics({ register: this.registry, prefix: p });
  }

  /**
   * A gauge read at scrape time: `read` runs only when /metrics is asked (it may query the
   * database). `name` is given without the prefix.
   */
  gauge(name: string, help: string, read: () => number | Promise<number>): Gauge {
    return new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }

  /** Counts a social read cache's hits, misses and bytes (one per app built on these deps). */
  addReadCache(cache: ReadCacheStats): void {
    this.readCaches.add(cache);
  }

  /** The database pool's gauges, for a store that has a pool. */
  watchPool(stats: () => PoolStats): void {
    this.gauge("db_pool_connections", "Connections the database pool holds, busy or idle", () => stats().total);
    this.gauge("db_pool_idle_connections", "Connections of the database pool waiting for a query", () => stats().idle);
    this.gauge(
      "db_pool_waiting_queries",
      "Queries waiting for a connection of the database pool",
      () => stats().waiting,
    );
  }

  /** A function counting one Redis error of `component` (given to the Redis clients). */
  redisErrorCounter(component: RedisComponent): () => void {
    const child = this.redisErrors.labels(component);
    return () => child.inc();
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
