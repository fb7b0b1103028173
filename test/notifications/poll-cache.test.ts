import { describe, expect, it } from "vitest";
import { NotificationPollCache } from "../../src/modules/notifications/poll-cache.js";

const limits = { maxBytes: 1000, maxAnswerBytes: 300, maxAgeMs: 60_000 };
const bytes = (n: number, fill = "x") => Buffer.from(fill.repeat(n));

describe("the notifications poll cache (decision 0171)", () => {
  it("keeps a computed answer and serves it until the user's notifications change", () => {
    const cache = new NotificationPollCache(limits);
    cache.keep(cache.begin("u1"), bytes(10));
    expect(cache.peek("u1")?.toString()).toBe("x".repeat(10));
    cache.changed(["u2"]);
    expect(cache.peek("u1")).toBeDefined();
    cache.changed(["u1"]);
    expect(cache.peek("u1")).toBeUndefined();
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it("does not keep an answer whose user changed while it was computed", () => {
    const cache = new NotificationPollCache(limits);
    const ticket = cache.begin("u1");
    const other = cache.begin("u2");
    cache.changed(["u1"]);
    cache.keep(ticket, bytes(10));
    cache.keep(other, bytes(10));
    expect(cache.peek("u1")).toBeUndefined();
    expect(cache.peek("u2")).toBeDefined();
    // A computation begun after the change is kept.
    cache.keep(cache.begin("u1"), bytes(10));
    expect(cache.peek("u1")).toBeDefined();
  });

  it("a replaced store drops every answer and every computation under way", () => {
    const cache = new NotificationPollCache(limits);
    cache.keep(cache.begin("u1"), bytes(10));
    const ticket = cache.begin("u2");
    cache.changed("all");
    cache.keep(ticket, bytes(10));
    expect(cache.peek("u1")).toBeUndefined();
    expect(cache.peek("u2")).toBeUndefined();
    expect(cache.stats().bytes).toBe(0);
  });

  it("holds at most its byte budget, dropping the oldest answers first, and never an oversized one", () => {
    const cache = new NotificationPollCache(limits);
    for (let i = 0; i < 20; i++) {
      cache.keep(cache.begin(`u${i}`), bytes(100 + i));
      expect(cache.stats().bytes).toBeLessThanOrEqual(limits.maxBytes);
    }
    // The newest answers are held; the oldest went first.
    expect(cache.peek("u19")).toBeDefined();
    expect(cache.peek("u0")).toBeUndefined();
    const held = Array.from({ length: 20 }, (_, i) => cache.peek(`u${i}`)?.length ?? 0).reduce((a, b) => a + b, 0);
    expect(held).toBe(cache.stats().bytes);
    cache.keep(cache.begin("big"), bytes(301));
    expect(cache.peek("big")).toBeUndefined();
    // Keeping a user's answer again replaces it (counted once).
    const before = cache.stats().bytes;
    cache.keep(cache.begin("u19"), bytes(119, "y"));
    expect(cache.stats().bytes).toBe(before);
    expect(cache.peek("u19")?.toString()).toBe("y".repeat(119));
  });

  it("an answer expires after its maximum age (an event lost between instances heals)", () => {
    let now = 0;
    const cache = new NotificationPollCache(limits, () => now);
    cache.keep(cache.begin("u1"), bytes(10));
    now = 60_000;
    expect(cache.peek("u1")).toBeDefined();
    now = 60_001;
    expect(cache.peek("u1")).toBeUndefined();
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it("a failed computation leaves nothing under way", () => {
    const cache = new NotificationPollCache(limits);
    const ticket = cache.begin("u1");
    cache.release(ticket);
    cache.changed(["u1"]);
    expect(ticket.stale).toBe(false);
  });
});
