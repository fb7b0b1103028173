import { afterEach, describe, expect, it, vi } from "vitest";
import { repeatEvery } from "../../src/core/repeat.js";

describe("repeatEvery", () => {
  afterEach(() => vi.useRealTimers());

  it("runs now if asked, then every period; never two at once; only while `when` holds; stop waits", async () => {
    vi.useFakeTimers();
    let started = 0;
    let release: () => void = () => {};
    let leading = true;
    const pass = () => {
      started += 1;
      return new Promise<void>((r) => {
        release = r;
      });
    };
    const stop = repeatEvery(1_000, pass, { now: true, alsoAfterMs: 300, when: () => leading });
    expect(started).toBe(1);
    await vi.advanceTimersByTimeAsync(2_500); // the first pass is still running: skipped
    expect(started).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(500); // the next period
    expect(started).toBe(2);
    release();
    leading = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(started).toBe(2);
    leading = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toBe(3);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(started).toBe(3);
  });
});
