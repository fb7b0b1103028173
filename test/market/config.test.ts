import { describe, expect, it } from "vitest";
import { type ConfigError, loadConfig } from "../../src/config.js";

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    return (error as ConfigError).problems;
  }
};

describe("market and demo configuration", () => {
  it("has the documented defaults", () => {
    const c = loadConfig({});
    expect(c.market).toEqual({ seed: 42, tickMs: 1000, volatility: 0.0004, spreadBps: 4 });
    expect(c.demo.startingBalanceCents).toBe(10_000_000);
  });

  it("reads every setting", () => {
    const c = loadConfig({
      MARKET_SEED: "7",
      MARKET_TICK_MS: "0",
      MARKET_VOLATILITY: "0.002",
      MARKET_SPREAD_BPS: "1.5",
      DEMO_BALANCE: "2500.5",
    });
    expect(c.market).toEqual({ seed: 7, tickMs: 0, volatility: 0.002, spreadBps: 1.5 });
    expect(c.demo.startingBalanceCents).toBe(250_050);
  });

  it("reads the market lease key (several instances)", () => {
    expect(loadConfig({ MARKET_LEASE_KEY: "prod:market:leader" }).market.leaseKey).toBe("prod:market:leader");
  });

  it.each([
    ["MARKET_SEED", "-1"],
    ["MARKET_SEED", "4294967296"],
    ["MARKET_TICK_MS", "5"],
    ["MARKET_TICK_MS", "fast"],
    ["MARKET_VOLATILITY", "0.5"],
    ["MARKET_SPREAD_BPS", "-2"],
    ["DEMO_BALANCE", "100.001"],
    ["DEMO_BALANCE", "-5"],
    ["DEMO_BALANCE", "1e6"],
    ["MARKET_LEASE_KEY", "has spaces"],
  ])("refuses %s=%s with a message naming it", (name, value) => {
    const found = problems({ [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(name);
    expect(found[0]).toContain(value);
  });
});
