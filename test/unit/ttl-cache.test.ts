import { describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/core/clock.js";
import { TtlCache } from "../../src/core/ttl-cache.js";

/** A clock the test moves by hand. */
function manualClock(start = Date.parse("2026-03-02T10:00:00.000Z")) {
  let now = start;
  const clock: Clock = { now: () => new Date(now) };
  return { clock, advance: (ms: number) => (now += ms) };
}

const entry = (id: string, group = "a") => ({ id, group });

describe("the authenticators' TTL cache", () => {
  it("answers an entry until its ttl has passed on the given clock, and not from then on", () => {
    const time = manualClock();
    const cache = new TtlCache<{ id: string }>(1000, 10, time.clock);
    cache.set("k", entry("1"));
    time.advance(999);
    expect(cache.get("k")).toEqual(entry("1"));
    time.advance(2);
    expect(cache.get("k")).toBeUndefined();
    // A set starts a new ttl.
    cache.set("k", entry("2"));
    time.advance(500);
    expect(cache.get("k")).toEqual(entry("2"));
  });

  it("stores nothing with a ttl of 0", () => {
    for (const clock of [systemClock, manualClock().clock]) {
      const cache = new TtlCache<{ id: string }>(0, 10, clock);
      cache.set("k", entry("1"));
      expect(cache.get("k")).toBeUndefined();
      cache.evictWhere(() => true);
    }
  });

  it("keeps at most maxEntries, dropping the least recently used first", () => {
    const cache = new TtlCache<{ id: string }>(60_000, 3, systemClock);
    for (const id of ["1", "2", "3"]) cache.set(id, entry(id));
    expect(cache.get("1")).toEqual(entry("1"));
    cache.set("4", entry("4"));
    expect(["1", "2", "3", "4"].map((id) => cache.get(id)?.id)).toEqual(["1", undefined, "3", "4"]);
  });

  it("evictWhere drops every matching entry and keeps the others", () => {
    const cache = new TtlCache<{ id: string; group: string }>(60_000, 100, systemClock);
    for (let i = 0; i < 50; i++) cache.set(String(i), entry(String(i), i % 5 === 0 ? "revoked" : "kept"));
    cache.evictWhere((v) => v.group === "revoked");
    for (let i = 0; i < 50; i++) expect(cache.get(String(i)) === undefined).toBe(i % 5 === 0);
  });
});
