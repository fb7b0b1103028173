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

/**
 * The answers of one method, route pattern and status, counted by the HTTP recorder with plain
 * arithmetic (no prom-client call, no allocation per answer) and read when /metrics is scraped.
 * prom-client's cached children cost about 2.6 µs per answer here, hashing their labels (decision 0106).
 */
export class HttpSeries {
  count = 0;
  sum = 0;
  /** Answers per bucket, not cumulative: slot i holds durations up to HTTP_BUCKETS[i], the last one the rest. */
  readonly buckets = new Float64Array(HTTP_BUCKETS.length + 1);

  constructor(readonly labels: Readonly<{ method: string; route: string; status: string }>) {}

  record(seconds: number): void {
    this.count += 1;
    this.sum += seconds;
    let i = 0;
    while (i < HTTP_BUCKETS.length && seconds > (HTTP_BUCKETS[i] as number)) i += 1;
    this.buckets[i] = (this.buckets[i] as number) + 1;
  }
}

/** A sample as prom-client's registry formats it. */
interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/**
 * The request-duration histogram over the HttpSeries, in the shape prom-client's registry reads
 * from its own histograms (`get()`: bucket, sum and count samples), so the registry formats it.
 */
class SeriesHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly series: Map<string, HttpSeries>,
  ) {}

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      HTTP_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i] as number;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Zeroes every series (the recorders keep theirs: the series themselves stay). */
  reset(): void {
    for (const s of this.series.values()) {
      s.count = 0;
      s.sum = 0;
      s.buckets.fill(0);
    }
  }
}

/** Where Redis is used: the event bus, the market lease, the rate-limit counters. */
export type RedisComponent = "bus" | "lease" | "ratelimit";

/** What the metrics read from a social read cache at scrape time. */
export interface ReadCacheStats {
  stats(): { entries: number; bytes: number; hits: number; misses: number; renewals: number };
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
  /**
   * Answers per method, route pattern (never the raw URL) and status, with their durations:
   * `sta_http_requests_total` and `sta_http_request_duration_seconds` read them at scrape time.
   */
  private readonly http = new Map<string, HttpSeries>();
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
    const http = this.http;
    new Counter({
      name: `${p}http_requests_total`,
      help: "HTTP requests answered, by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      registers,
      collect() {
        this.reset();
        for (const series of http.values()) this.inc(series.labels, series.count);
      },
    });
    this.registry.registerMetric(
      new SeriesHistogram(
        `${p}http_request_duration_seconds`,
        "Time to answer an HTTP request, from its arrival to the end of the answer",
        http,
      ) as unknown as Histogram,
    );
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
    const sum = (key: keyof ReturnType<ReadCacheStats["stats"]>) => {
      let total = 0;
      for (const cache of caches) total += cache.stats()[key];
      return total;
    };
    // Hits and misses are counted by the caches themselves (plain numbers, nothing on the hit
    // path); the counters take their sum at scrape time.
    const cacheCounter = (key: "hits" | "misses" | "renewals", help: string) =>
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
    cacheCounter(
      "renewals",
      "Kept social documents and marks whose maximum age was renewed rather than built again: no other connection committed since their build started",
    );
    this.gauge("read_cache_bytes", "Bytes of answers held by the social read cache", () => sum("bytes"));
    this.gauge("read_cache_entries", "Answers held by the social read cache", () => sum("entries"));
    if (enabled) collectDefaultMetrics({ register: this.registry, prefix: p });
  }

  /**
   * A gauge read at scrape time: `read` runs only when /metrics is asked (it may query the
   * database). `name` is given without the prefix. A read that fails (the database is down)
   * reports NaN, so the rest of the scrape still answers.
   */
  gauge(name: string, help: string, read: () => number | Promise<number>): Gauge {
    return new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [this.registry],
      async collect() {
        let value: number;
        try {
          value = await read();
        } catch {
          value = Number.NaN;
        }
        this.set(value);
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

  /**
   * The series of answers of one method, route pattern and status (made on its first answer; the
   * HTTP recorder keeps it, so an answer costs no lookup here). Apps on the same deps share it.
   */
  httpSeries(method: string, route: string, status: number): HttpSeries {
    const key = `${method} ${route} ${status}`;
    let series = this.http.get(key);
    if (!series) {
      series = new HttpSeries({ method, route, status: String(status) });
      this.http.set(key, series);
    }
    return series;
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
