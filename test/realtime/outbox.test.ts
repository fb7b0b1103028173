import { describe, expect, it } from "vitest";
import { Outbox, type Sink } from "../../src/modules/realtime/outbox.js";
import { message } from "../../src/modules/realtime/protocol.js";
import { RATE_TYPE } from "../../src/modules/realtime/rates.js";

/** A sink that takes nothing while `full` (rates wait and conflate), and records what it is sent. */
const sink = () => {
  const s = {
    full: false,
    frames: [] as string[],
    send(data: string, done: (error?: Error) => void) {
      s.frames.push(data);
      done();
    },
    get bufferedAmount() {
      return s.full ? Number.MAX_SAFE_INTEGER : 0;
    },
    overflow() {},
  };
  return s satisfies Sink;
};

const flushed = () => new Promise<void>((r) => setTimeout(r, 0));
const pushed = (frames: string[]) =>
  frames.flatMap((f) =>
    (JSON.parse(f) as { messages: { content: string }[] }).messages.map((m) => JSON.parse(m.content)),
  );

describe("the outbox's rates, shared by every subscriber of a tick", () => {
  it("merges a newer rate into a waiting one without touching the fields the other sockets were given", async () => {
    const slow = sink();
    const fast = sink();
    slow.full = true;
    const a = new Outbox(slow, 1024, 10);
    const b = new Outbox(fast, 1024, 10);
    // The hub builds one fields object per instrument and tick, and hands the same one to every socket.
    const first = { Bid: "1.1", Ask: "1.2", Date: "d1", PriceRateID: "1" };
    const serialized = message("instrument:1", RATE_TYPE, first);
    a.rate(1, "instrument:1", first, serialized);
    b.rate(1, "instrument:1", first, serialized);
    await flushed();
    const second = { Ask: "1.3", Date: "d2", PriceRateID: "2" };
    a.rate(1, "instrument:1", second, message("instrument:1", RATE_TYPE, second));
    a.rate(1, "instrument:1", { Date: "d3", PriceRateID: "3" });
    expect(first).toEqual({ Bid: "1.1", Ask: "1.2", Date: "d1", PriceRateID: "1" });
    expect(second).toEqual({ Ask: "1.3", Date: "d2", PriceRateID: "2" });
    expect(pushed(fast.frames)).toEqual([first]);
    slow.full = false;
    a.rate(2, "instrument:2", { Date: "d3", PriceRateID: "3" });
    await flushed();
    expect(pushed(slow.frames)).toEqual([
      { Bid: "1.1", Ask: "1.3", Date: "d3", PriceRateID: "3" },
      { Date: "d3", PriceRateID: "3" },
    ]);
  });

  it("sends the message serialized once for all subscribers while nothing merged into it", async () => {
    const s = sink();
    const box = new Outbox(s, 1024, 10);
    const fields = { Bid: "1", Date: "d", PriceRateID: "7" };
    const serialized = message("instrument:5", RATE_TYPE, fields, "the-one-id");
    box.rate(5, "instrument:5", fields, serialized);
    await flushed();
    expect(s.frames).toEqual([`{"messages":[${serialized}]}`]);
  });
});
