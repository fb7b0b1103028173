import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { accountPoolKey, signInDelaySeconds } from "../../src/modules/oauth/sign-in-throttle.rules.js";

const settingsArb = fc.record({
  freeFailures: fc.integer({ min: 1, max: 100 }),
  maxDelaySeconds: fc.integer({ min: 1, max: 86_400 }),
});

describe("the sign-in delay (decision 0104)", () => {
  it("is none for the free failures, then 1 s, 2 s, 4 s … up to the cap (the defaults)", () => {
    const defaults = loadConfig({}).signIn;
    const delays = Array.from({ length: 17 }, (_, i) => signInDelaySeconds(i, defaults));
    expect(delays).toEqual([0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
  });

  it("never decreases with more failures and never passes the cap", () => {
    fc.assert(
      fc.property(settingsArb, fc.nat(10_000), fc.nat(10_000), (settings, a, b) => {
        const [few, many] = a <= b ? [a, b] : [b, a];
        const low = signInDelaySeconds(few, settings);
        const high = signInDelaySeconds(many, settings);
        expect(low).toBeLessThanOrEqual(high);
        expect(high).toBeLessThanOrEqual(settings.maxDelaySeconds);
        expect(Number.isInteger(high)).toBe(true);
      }),
    );
  });

  it("is zero below the free failures, at least 1 s from there, and doubles until the cap", () => {
    fc.assert(
      fc.property(settingsArb, fc.nat(200), (settings, failures) => {
        const delay = signInDelaySeconds(failures, settings);
        if (failures < settings.freeFailures) expect(delay).toBe(0);
        else expect(delay).toBeGreaterThanOrEqual(1);
        const next = signInDelaySeconds(failures + 1, settings);
        if (failures >= settings.freeFailures) expect(next).toBe(Math.min(2 * delay, settings.maxDelaySeconds));
      }),
    );
  });

  it("counts an account's unknown browsers under one key, however the username is cased or padded", () => {
    expect(accountPoolKey(" Alice ")).toBe(accountPoolKey("alice"));
    expect(accountPoolKey("alice")).not.toBe(accountPoolKey("alicia"));
    expect(accountPoolKey("alice")).toMatch(/^account:[0-9a-f]{64}$/);
  });
});

describe("sign-in settings", () => {
  it("take the defaults, and the operator's values", () => {
    expect(loadConfig({}).signIn).toEqual({
      freeFailures: 5,
      windowSeconds: 900,
      maxDelaySeconds: 900,
      deviceCookieSeconds: 180 * 86_400,
    });
    const set = loadConfig({
      SIGNIN_FREE_FAILURES: "3",
      SIGNIN_WINDOW_MINUTES: "60",
      SIGNIN_MAX_DELAY_SECONDS: "120",
      SIGNIN_DEVICE_DAYS: "30",
    }).signIn;
    expect(set).toEqual({
      freeFailures: 3,
      windowSeconds: 3600,
      maxDelaySeconds: 120,
      deviceCookieSeconds: 30 * 86_400,
    });
  });

  it("refuse nonsense with one sentence per setting", () => {
    let error: unknown;
    try {
      loadConfig({
        SIGNIN_FREE_FAILURES: "0",
        SIGNIN_WINDOW_MINUTES: "15m",
        SIGNIN_MAX_DELAY_SECONDS: "1e3",
        SIGNIN_DEVICE_DAYS: "-1",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'SIGNIN_FREE_FAILURES must be a whole number of failures from 1 to 100 (got "0")',
      'SIGNIN_WINDOW_MINUTES must be a whole number of minutes from 1 to 1440 (got "15m")',
      'SIGNIN_MAX_DELAY_SECONDS must be a whole number of seconds from 1 to 86400 (got "1e3")',
      'SIGNIN_DEVICE_DAYS must be a whole number of days from 1 to 730 (got "-1")',
    ]);
  });
});
