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

describe("real-time configuration (REALTIME_*)", () => {
  it("has the documented defaults", () => {
    expect(loadConfig({}).realtime).toEqual({
      port: undefined,
      maxConnectionsPerUser: 10,
      operations: { max: 100, windowSeconds: 10 },
      keepaliveMs: 20_000,
      bufferBytes: 1_048_576,
      maxQueuedEvents: 1000,
      authTimeoutSeconds: 30,
      maxUnauthenticated: 1000,
    });
  });

  it("reads every setting", () => {
    const c = loadConfig({
      REALTIME_PORT: "8081",
      REALTIME_MAX_CONNECTIONS_PER_USER: "3",
      REALTIME_RATE_LIMIT: "20/1m",
      REALTIME_KEEPALIVE_MS: "0",
      REALTIME_BUFFER_BYTES: "65536",
      REALTIME_MAX_QUEUED_EVENTS: "50",
      REALTIME_AUTH_TIMEOUT_SECONDS: "0",
      REALTIME_MAX_UNAUTHENTICATED: "5",
    });
    expect(c.realtime).toEqual({
      port: 8081,
      maxConnectionsPerUser: 3,
      operations: { max: 20, windowSeconds: 60 },
      keepaliveMs: 0,
      bufferBytes: 65_536,
      maxQueuedEvents: 50,
      authTimeoutSeconds: 0,
      maxUnauthenticated: 5,
    });
  });

  it.each([
    ["REALTIME_PORT", "70000", "REALTIME_PORT must be an integer from 0 to 65535, or unset"],
    ["REALTIME_MAX_CONNECTIONS_PER_USER", "0", "REALTIME_MAX_CONNECTIONS_PER_USER must be a whole number of sockets"],
    ["REALTIME_RATE_LIMIT", "fast", "REALTIME_RATE_LIMIT must be <operations>/<window>"],
    ["REALTIME_KEEPALIVE_MS", "-5", "REALTIME_KEEPALIVE_MS must be a whole number of milliseconds"],
    ["REALTIME_BUFFER_BYTES", "100", "REALTIME_BUFFER_BYTES must be a whole number of bytes from 1024"],
    ["REALTIME_MAX_QUEUED_EVENTS", "many", "REALTIME_MAX_QUEUED_EVENTS must be a whole number of events"],
    ["REALTIME_AUTH_TIMEOUT_SECONDS", "1h", "REALTIME_AUTH_TIMEOUT_SECONDS must be a whole number of seconds"],
    ["REALTIME_MAX_UNAUTHENTICATED", "0", "REALTIME_MAX_UNAUTHENTICATED must be a whole number of sockets"],
  ])("refuses %s=%s, naming the setting and the value", (name, value, message) => {
    const found = problems({ [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
    expect(found[0]).toContain(`(got "${value}")`);
  });
});
