import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { ErrorBody } from "../../src/http/schemas.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { engines, type Harness, type Headers, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const TOKEN = "metrics-test-token-0123456789abcdef";
const METRICS_ON = { METRICS: "on", METRICS_TOKEN: TOKEN };
const ME = "/api/v1/me";
const AAPL = 1001;
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";

type Labels = Record<string, string>;
interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Labels = {};
    for (const l of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
function sampleValue(samples: Sample[], name: string, labels: Labels = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

const auth = { authorization: `Bearer ${TOKEN}` };

async function scrape(app: App): Promise<Sample[]> {
  const res = await app.inject({ method: "GET", url: "/metrics", headers: auth });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.body);
}

const get = (app: App, url: string, headers: Headers = {}) =>
  app.inject({ method: "GET", url, headers: { ...headers, "x-request-id": randomUUID() } });

describe("METRICS settings", () => {
  it("are off by default and refuse on without a token, a short token or another mode", () => {
    expect(loadConfig({}).metrics).toEqual({ enabled: false, token: undefined });
    expect(loadConfig(METRICS_ON).metrics).toEqual({ enabled: true, token: TOKEN });
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as { problems: string[] }).problems;
      }
    };
    expect(problems({ METRICS: "on" })).toEqual([
      "METRICS=on needs METRICS_TOKEN, the bearer token a scraper must send to /metrics (16 characters or more)",
    ]);
    expect(problems({ METRICS: "yes" })).toEqual(['METRICS must be on or off (got "yes")']);
    const short = problems({ METRICS: "on", METRICS_TOKEN: "short secret" });
    expect(short).toEqual([
      'METRICS_TOKEN must be 16 to 512 visible ASCII characters without spaces, e.g. the output of "openssl rand -hex 32" (got 12 characters)',
    ]);
    // The token is never repeated in a message.
    expect(short.join(" ")).not.toContain("short secret");
  });
});

describe.each(engines())("the /metrics endpoint on %s", (engine) => {
  let h: Harness;
  let other: Harness;
  let off: Harness;
  beforeAll(async () => {
    [h, other, off] = await Promise.all([
      startHarness(engine, { env: METRICS_ON }),
      startHarness(engine, { env: METRICS_ON }),
      // A token alone does not turn metrics on.
      startHarness(engine, { env: { METRICS_TOKEN: TOKEN } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([h?.close(), other?.close(), off?.close()]);
  });

  it("is a 404 when metrics are off, token or not", async () => {
    for (const headers of [{}, auth] as Headers[]) {
      const res = await get(off.app, "/metrics", headers);
      expect(res.statusCode).toBe(404);
      expectSchema(ErrorBody, res.json());
      expect(res.json().errorCode).toBe("NotFound");
    }
  });

  it("refuses a scrape without the token, or with another, with 401 and a Bearer challenge", async () => {
    const attempts: Headers[] = [
      {},
      { authorization: "Bearer not-the-metrics-token-at-all" },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const res = await get(h.app, "/metrics", headers);
      expect(res.statusCode).toBe(401);
      expectSchema(ErrorBody, res.json());
      expect(res.json().errorCode).toBe("Unauthorized");
      expect(res.headers["www-authenticate"]).toBe('Bearer realm="metrics"');
      expect(res.body).not.toContain(TOKEN);
    }
  });

  it("counts answers per method, route pattern and status, with their durations", async () => {
    const u = await h.user(["user-info:read"]);
    const before = await scrape(h.app);
    const series = { method: "GET", route: ME, status: "200" };
    for (let i = 0; i < 3; i++) expect((await get(h.app, ME, u.headers)).statusCode).toBe(200);
    expect((await get(h.app, ME)).statusCode).toBe(401);
    const post = `/api/v1/posts/${randomUUID()}`;
    expect((await get(h.app, post, u.headers)).statusCode).toBe(403);
    expect((await get(h.app, `/no/such/path/${randomUUID()}`)).statusCode).toBe(404);
    expect((await h.app.inject({ method: "DELETE", url: "/health" })).statusCode).toBe(405);
    const after = await scrape(h.app);

    const delta = (name: string, labels: Labels) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(delta("sta_http_requests_total", series)).toBe(3);
    expect(delta("sta_http_request_duration_seconds_count", series)).toBe(3);
    expect(delta("sta_http_request_duration_seconds_bucket", { ...series, le: "+Inf" })).toBe(3);
    expect(sampleValue(after, "sta_http_request_duration_seconds_sum", series)).toBeGreaterThan(0);
    // Buckets are cumulative: never decreasing with `le`, the last one holding every answer.
    const buckets = after.filter(
      (s) =>
        s.name === "sta_http_request_duration_seconds_bucket" && s.labels.route === ME && s.labels.status === "200",
    );
    expect(buckets.map((s) => s.labels.le)).toEqual([
      ...["0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5"],
      "+Inf",
    ]);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(buckets.at(-1)!.value).toBe(sampleValue(after, "sta_http_request_duration_seconds_count", series));
    expect(delta("sta_http_requests_total", { method: "GET", route: ME, status: "401" })).toBe(1);
    // The pattern, never the URL: no label holds a post id or an unknown path.
    expect(delta("sta_http_requests_total", { method: "GET", route: "/api/v1/posts/:postId", status: "403" })).toBe(1);
    expect(delta("sta_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(delta("sta_http_requests_total", { method: "DELETE", route: "unmatched", status: "405" })).toBe(1);
    const routes = new Set(after.filter((s) => s.name === "sta_http_requests_total").map((s) => s.labels.route));
    for (const route of routes) expect(route === "unmatched" || route!.startsWith("/")).toBe(true);
    expect([...routes].some((r) => r!.includes(post.split("/").at(-1)!) || r!.startsWith("/no/"))).toBe(false);
    // The earlier scrape is itself an answer of /metrics.
    expect(
      sampleValue(after, "sta_http_requests_total", { method: "GET", route: "/metrics", status: "200" }),
    ).toBeGreaterThan(0);
  });

  it("counts a 429 under the exhausted pool", async () => {
    const tiny = await h.tinyLimitApp();
    const u = await h.user(["user-info:read"]);
    const before = sampleValue(await scrape(h.app), "sta_rate_limit_rejections_total", { pool: "default" });
    expect((await get(tiny, ME, u.headers)).statusCode).toBe(200);
    const refused = await get(tiny, ME, u.headers);
    expect(refused.statusCode).toBe(429);
    // The second app is built on the same deps: one registry, scraped through either app.
    const after = await scrape(tiny);
    expect(sampleValue(after, "sta_rate_limit_rejections_total", { pool: "default" })).toBe(before + 1);
    expect(sampleValue(after, "sta_http_requests_total", { method: "GET", route: ME, status: "429" })).toBe(1);
  });

  it("reads the social read cache's hits, misses and bytes at scrape time", async () => {
    const u = await h.user(["feed:read", "feed:write"]);
    const created = await h.app.inject({
      method: "POST",
      url: "/api/v1/posts",
      headers: { ...u.headers, "x-request-id": randomUUID() },
      payload: { message: "Metrics tour", tags: { tags: [{ id: String(AAPL) }] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const url = `/api/v1/posts/${created.json().id}`;
    const before = await scrape(h.app);
    const first = await get(h.app, url, u.headers);
    const second = await get(h.app, url, u.headers);
    expect(first.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    const after = await scrape(h.app);
    const delta = (name: string) => sampleValue(after, name) - sampleValue(before, name);
    // Two parts are kept by the first read and found by the second: the post's shared document
    // (decision 0169) and the caller's marks (0191).
    expect(delta("sta_read_cache_misses_total")).toBe(2);
    expect(delta("sta_read_cache_hits_total")).toBe(2);
    // The document is its bytes (the answer with every caller flag false) and the positions of
    // those flags, so at least the answer's size.
    expect(delta("sta_read_cache_bytes")).toBeGreaterThanOrEqual(Buffer.byteLength(first.body));
    expect(delta("sta_read_cache_entries")).toBe(2);
  });

  it("counts audit events per action and outcome", async () => {
    const labels = { action: "key-pair.created", outcome: "success" };
    const before = sampleValue(await scrape(h.app), "sta_audit_events_total", labels);
    await h.user(["user-info:read"]);
    await h.user(["user-info:read"]);
    expect(sampleValue(await scrape(h.app), "sta_audit_events_total", labels)).toBe(before + 2);
  });

  it("reads open positions and armed triggers when scraped", async () => {
    const u = await h.user(["trade.demo:write"]);
    const q = (await currentQuotes(h.deps, [AAPL])).get(AAPL)!;
    const before = await scrape(h.app);
    const opened = await h.app.inject({
      method: "POST",
      url: BY_AMOUNT,
      headers: { ...u.headers, "x-request-id": randomUUID() },
      payload: { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 1000, StopLossRate: q.bid * 0.5 },
    });
    expect(opened.statusCode, opened.body).toBe(200);
    const plain = await h.app.inject({
      method: "POST",
      url: BY_AMOUNT,
      headers: { ...u.headers, "x-request-id": randomUUID() },
      payload: { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 500 },
    });
    expect(plain.statusCode, plain.body).toBe(200);
    const after = await scrape(h.app);
    const delta = (name: string) => sampleValue(after, name) - sampleValue(before, name);
    expect(delta("sta_trading_open_positions")).toBe(2);
    expect(sampleValue(after, "sta_trading_armed_triggers")).toBe(h.deps.triggers.index.size);
    expect(delta("sta_trading_armed_triggers")).toBeGreaterThanOrEqual(1);
  });

  it("reads the price alerts watched when scraped", async () => {
    const u = await h.user(["price-alerts:write"]);
    const before = sampleValue(await scrape(h.app), "sta_price_alerts_watched");
    const made = await h.app.inject({
      method: "POST",
      url: "/api/v1/price-alerts",
      headers: { ...u.headers, "x-request-id": randomUUID() },
      payload: { symbol: "AAPL", targetPrice: 1 },
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(sampleValue(await scrape(h.app), "sta_price_alerts_watched")).toBe(before + 1);
    expect(sampleValue(await scrape(h.app), "sta_realtime_connections")).toBe(0);
  });

  it("counts price ticks and how late timed ticks start", async () => {
    const before = sampleValue(await scrape(h.app), "sta_market_ticks_total", { kind: "ticked" });
    await h.deps.market.tick();
    await h.deps.market.tick();
    expect(sampleValue(await scrape(h.app), "sta_market_ticks_total", { kind: "ticked" })).toBe(before + 2);

    // A timed engine (as `serve` starts it) on its own deps: every tick it runs has its lag observed.
    const timed = await startHarness(engine, { env: { ...METRICS_ON, MARKET_TICK_MS: "20" } });
    try {
      timed.deps.market.start();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await timed.deps.market.stop();
      const samples = await scrape(timed.app);
      const lagged = sampleValue(samples, "sta_market_tick_lag_seconds_count");
      expect(lagged).toBeGreaterThan(0);
      expect(lagged).toBe(sampleValue(samples, "sta_market_ticks_total", { kind: "ticked" }));
      expect(sampleValue(samples, "sta_market_tick_lag_seconds_sum")).toBeGreaterThanOrEqual(0);
    } finally {
      await timed.close();
    }
  });

  it("shows the database pool on PostgreSQL, and none on SQLite", async () => {
    const samples = await scrape(h.app);
    const names = new Set(samples.map((s) => s.name));
    if (engine === "postgres") {
      expect(sampleValue(samples, "sta_db_pool_connections")).toBeGreaterThanOrEqual(1);
      expect(sampleValue(samples, "sta_db_pool_idle_connections")).toBeLessThanOrEqual(
        sampleValue(samples, "sta_db_pool_connections"),
      );
      expect(sampleValue(samples, "sta_db_pool_waiting_queries")).toBe(0);
    } else {
      expect(names.has("sta_db_pool_connections")).toBe(false);
    }
  });

  it("reports NaN for a gauge whose read fails, and the rest of the scrape still answers", async () => {
    h.deps.metrics.gauge("test_unreadable", "A gauge whose source is down", async () => {
      throw new Error("the source is down");
    });
    const samples = await scrape(h.app);
    expect(sampleValue(samples, "sta_test_unreadable")).toBeNaN();
    expect(sampleValue(samples, "sta_trading_open_positions")).toBeGreaterThanOrEqual(0);
  });

  it("exposes the process's default metrics under the prefix", async () => {
    const samples = await scrape(h.app);
    expect(sampleValue(samples, "sta_process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(sampleValue(samples, "sta_nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    // Every metric carries the prefix: nothing of prom-client's global registry leaks in.
    expect(samples.filter((s) => !s.name.startsWith("sta_"))).toEqual([]);
  });

  it("keeps two apps' counts apart in one process", async () => {
    const u = await other.user(["user-info:read"]);
    const series = { method: "GET", route: ME, status: "200" };
    const mine = sampleValue(await scrape(h.app), "sta_http_requests_total", series);
    const theirsBefore = sampleValue(await scrape(other.app), "sta_http_requests_total", series);
    for (let i = 0; i < 4; i++) expect((await get(other.app, ME, u.headers)).statusCode).toBe(200);
    expect(sampleValue(await scrape(other.app), "sta_http_requests_total", series)).toBe(theirsBefore + 4);
    expect(sampleValue(await scrape(h.app), "sta_http_requests_total", series)).toBe(mine);
    expect(h.deps.metrics.registry).not.toBe(other.deps.metrics.registry);
  });
});

describe("Redis errors", () => {
  it("are counted per component while Redis cannot be reached", async () => {
    // Nothing listens on port 1: every client fails to connect and keeps retrying.
    const h = await startHarness("sqlite", {
      env: { ...METRICS_ON, REDIS_URL: "redis://127.0.0.1:1", RATE_LIMITS_ENABLED: "true" },
    });
    try {
      await h.deps.market.tick();
      const samples = await scrape(h.app);
      for (const component of ["bus", "lease", "ratelimit"]) {
        expect(sampleValue(samples, "sta_redis_errors_total", { component }), component).toBeGreaterThan(0);
      }
    } finally {
      await h.close();
    }
  });
});
