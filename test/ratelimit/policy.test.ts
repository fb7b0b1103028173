import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ConfigError, DEFAULT_RATE_LIMITS, loadConfig, parseRateLimitPolicy } from "../../src/config.js";
import { bindingIndex, poolsFor } from "../../src/http/rate-limit.js";

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (e) {
    return (e as ConfigError).problems;
  }
  return [];
};

describe("pools of a request", () => {
  it.each([
    [undefined, "GET", ["default"]],
    ["feed", "GET", ["feed"]],
    ["watchlist", "HEAD", ["watchlist"]],
    ["market-data", "GET", ["market-data"]],
    ["notifications", "GET", ["default", "notifications"]],
    [undefined, "POST", ["default", "writes"]],
    [undefined, "patch", ["default", "writes"]],
    ["notifications", "PATCH", ["default", "notifications", "writes"]],
    ["writes", "GET", ["default", "writes"]],
    ["writes", "DELETE", ["default", "writes"]],
  ] as const)("group %s, %s → %j", (group, method, pools) => {
    expect(poolsFor(group, method)).toEqual(pools);
  });
});

describe("the binding limit (what the headers describe)", () => {
  it("admitted: the quota with the fewest left; on a tie the later reset", () => {
    const limits = [{ max: 60 }, { max: 1 }];
    expect(
      bindingIndex(limits, {
        admitted: true,
        states: [
          { count: 1, resetMs: 60_000 },
          { count: 1, resetMs: 1_000 },
        ],
      }),
    ).toBe(1);
    expect(
      bindingIndex([{ max: 60 }, { max: 20 }], {
        admitted: true,
        states: [
          { count: 60, resetMs: 30_000 },
          { count: 20, resetMs: 50_000 },
        ],
      }),
    ).toBe(1);
  });

  it("refused: an exhausted quota, never one with room left", () => {
    expect(
      bindingIndex([{ max: 60 }, { max: 1 }], {
        admitted: false,
        states: [
          { count: 3, resetMs: 60_000 },
          { count: 1, resetMs: 400 },
        ],
      }),
    ).toBe(1);
  });

  it("property: a refusal names an exhausted quota whose reset is the longest among the exhausted", () => {
    const quota = fc.record({ max: fc.integer({ min: 1, max: 100 }), used: fc.integer({ min: 0, max: 120 }) });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(quota, fc.integer({ min: 1, max: 100_000 })), { minLength: 1, maxLength: 4 }),
        (qs) => {
          const limits = qs.map(([q]) => ({ max: q.max }));
          const states = qs.map(([q, resetMs]) => ({ count: q.used, resetMs }));
          const exhausted = states.map((s, i) => s.count >= limits[i]!.max);
          const admitted = !exhausted.some(Boolean);
          const i = bindingIndex(limits, { admitted, states });
          if (admitted) {
            const left = states.map((s, j) => limits[j]!.max - s.count);
            expect(left[i]).toBe(Math.min(...left));
          } else {
            expect(exhausted[i]).toBe(true);
            const longest = Math.max(...states.filter((_, j) => exhausted[j]).map((s) => s.resetMs));
            expect(states[i]!.resetMs).toBe(longest);
          }
        },
      ),
    );
  });
});

describe("rate-limit configuration", () => {
  it("defaults to the spec's and upstream's values, limits on", () => {
    const c = loadConfig({});
    expect(c.rateLimits.enabled).toBe(true);
    expect(c.rateLimits.pools).toEqual(DEFAULT_RATE_LIMITS);
    expect(c.rateLimits.pools.default).toEqual({ max: 60, windowSeconds: 60 });
    expect(c.rateLimits.pools["market-data"]).toEqual({ max: 120, windowSeconds: 60 });
    expect(c.rateLimits.pools.writes).toEqual({ max: 20, windowSeconds: 60 });
    expect(c.rateLimits.pools.notifications).toEqual({ max: 1, windowSeconds: 1 });
    expect(c.trustProxy).toBe(false);
  });

  it("reads per-pool overrides and the switch", () => {
    const c = loadConfig({ RATE_LIMIT_FEED: "600/1m", RATE_LIMIT_MARKET_DATA: "5/2h", RATE_LIMITS_ENABLED: "false" });
    expect(c.rateLimits.enabled).toBe(false);
    expect(c.rateLimits.pools.feed).toEqual({ max: 600, windowSeconds: 60 });
    expect(c.rateLimits.pools["market-data"]).toEqual({ max: 5, windowSeconds: 7200 });
    expect(c.rateLimits.pools.default).toEqual({ max: 60, windowSeconds: 60 });
  });

  it("names every bad value, one message each", () => {
    const p = problems({
      RATE_LIMITS_ENABLED: "yes",
      RATE_LIMIT_DEFAULT: "60",
      RATE_LIMIT_WRITES: "0/60s",
      RATE_LIMIT_NOTIFICATIONS: "1/2d",
      TRUST_PROXY: "10.0.0.0/33",
    });
    expect(p).toHaveLength(5);
    expect(p[0]).toBe('RATE_LIMITS_ENABLED must be true or false (got "yes")');
    expect(p[1]).toMatch(/^RATE_LIMIT_DEFAULT must be <requests>\/<window>.*\(got "60"\)$/);
    expect(p[2]).toMatch(/^RATE_LIMIT_WRITES .*\(got "0\/60s"\)$/);
    expect(p[3]).toMatch(/^RATE_LIMIT_NOTIFICATIONS .*\(got "1\/2d"\)$/);
    expect(p[4]).toMatch(/^TRUST_PROXY must be .*\(got "10.0.0.0\/33"\)$/);
  });

  it.each([
    ["true", true],
    ["false", false],
    ["2", 2],
    ["10.0.0.1, 192.168.0.0/16,::1,loopback", ["10.0.0.1", "192.168.0.0/16", "::1", "loopback"]],
  ] as const)("TRUST_PROXY=%s", (text, expected) => {
    expect(loadConfig({ TRUST_PROXY: text }).trustProxy).toEqual(expected);
  });

  it("property: a policy written as n/ws, n/wm or n/wh parses back to n requests per window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 24 }),
        fc.constantFrom(["s", 1], ["m", 60], ["h", 3600]),
        (max, w, [unit, factor]) => {
          expect(parseRateLimitPolicy(`${max}/${w}${unit}`)).toEqual({ max, windowSeconds: w * (factor as number) });
        },
      ),
    );
  });

  it("rejects windows over a day and non-numeric text", () => {
    expect(parseRateLimitPolicy("1/25h")).toBeNull();
    expect(parseRateLimitPolicy("-1/1s")).toBeNull();
    expect(parseRateLimitPolicy("a/1s")).toBeNull();
    expect(parseRateLimitPolicy("1.5/1s")).toBeNull();
  });
});
