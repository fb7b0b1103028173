import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { client, RW } from "./helpers.js";

/*
 * READ_CACHE_MB is a budget the social read cache honours (docs/decisions/0190, 0196): through the
 * real app, far more feed and post answers are read than it holds, and the bytes it reports holding
 * (`/metrics`, what `--cache-stats` prints in bench/many.mjs) never exceed it, while it stays full.
 */
const TOKEN = "read-cache-budget-test-token";
const BUDGET = 1024 * 1024;

describe.each(engines())("the read cache's byte budget on %s", (engine) => {
  let h: Harness;
  let alice: TestUser;
  let bob: TestUser;
  const posts: string[] = [];
  const c = client(() => h);

  beforeAll(async () => {
    h = await startHarness(engine, { env: { READ_CACHE_MB: "1", METRICS: "on", METRICS_TOKEN: TOKEN } });
    [alice, bob] = [await h.user(RW), await h.user(RW)];
    // Each post's document is kept once however many answers show it (0191, 0192): to fill the
    // budget, more posts than it holds.
    for (let batch = 0; batch < 40; batch++) {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, j) => {
          const message = `Post ${batch * 20 + j} ${"long enough to weigh on the budget ".repeat(28)}`.slice(0, 1000);
          return c.post(j % 2 ? alice : bob, { message });
        }),
      );
      posts.push(...made.map((p) => p.id));
    }
  });
  afterAll(async () => h?.close());

  async function held(): Promise<{ bytes: number; entries: number; misses: number }> {
    const res = await h.app.inject({
      method: "GET",
      url: "/metrics",
      headers: { authorization: `Bearer ${TOKEN}`, "x-request-id": rid() },
    });
    expect(res.statusCode).toBe(200);
    const value = (name: string) => {
      const line = res.body.split("\n").find((l) => new RegExp(`^\\w*read_cache_${name} `).test(l));
      expect(line, name).toBeDefined();
      return Number(line!.split(" ")[1]);
    };
    return { bytes: value("bytes"), entries: value("entries"), misses: value("misses_total") };
  }

  it("never holds more than READ_CACHE_MB, however much is read, and fills it", async () => {
    let served = 0;
    let most = 0;
    const first = `/api/v1/posts/${posts[0]}`;
    const reads = posts.map((id) => `/api/v1/posts/${id}`);
    for (const who of [alice, bob]) {
      for (let offset = 0; offset < 400; offset += 50)
        reads.push(`/api/v1/feeds/users/${who.user.gcid}?take=50&offset=${offset}`);
    }
    for (const [i, url] of reads.entries()) {
      const res = await c.call(i % 2 ? alice : bob, "GET", url);
      expect(res.statusCode, res.body).toBe(200);
      served += res.rawPayload.length;
      const { bytes } = await held();
      expect(bytes, `after ${url}`).toBeLessThanOrEqual(BUDGET);
      most = Math.max(most, bytes);
    }
    // Several budgets' worth of answers were served; the cache was full, not merely under budget.
    expect(served).toBeGreaterThan(3 * BUDGET);
    expect(most).toBeGreaterThan(BUDGET / 2);
    const end = await held();
    expect(end.entries).toBeGreaterThan(0);
    // The first post read was evicted to make room: reading it again is a miss.
    await c.call(bob, "GET", first);
    expect((await held()).misses).toBeGreaterThan(end.misses);
  });
});
