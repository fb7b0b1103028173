import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Quote } from "../../src/core/market.js";
import { Outbox, type Sink } from "../../src/modules/realtime/outbox.js";
import { RateTick, rateDelta, rateMask } from "../../src/modules/realtime/rates.js";

const TOPIC = "instrument:7";

/** A sink that takes nothing while `full`, and records the messages it is sent. */
const sink = () => {
  const s = {
    full: true,
    messages: [] as { id: string; content: Record<string, string> }[],
    send(data: string | Buffer, done: (error?: Error) => void) {
      const frame = JSON.parse(data.toString()) as { messages?: { id: string; content: string }[] };
      for (const m of frame.messages ?? []) s.messages.push({ id: m.id, content: JSON.parse(m.content) });
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

/** A walk of one instrument's quotes where each side may or may not move at each tick. */
const walk = fc.array(fc.record({ bid: fc.integer({ min: 0, max: 3 }), ask: fc.integer({ min: 0, max: 3 }) }), {
  minLength: 1,
  maxLength: 30,
});
const quotesOf = (steps: { bid: number; ask: number }[]): Quote[] =>
  steps.map((s, i) => ({
    instrumentId: 7,
    bid: 100 + s.bid,
    ask: 104 + s.ask,
    mid: (100 + s.bid + 104 + s.ask) / 2,
    date: `2026-01-01T00:00:${String(i).padStart(2, "0")}.000Z`,
    priceRateId: i + 1,
  }));

describe("rates conflated in a socket's slot (property)", () => {
  it("send what merging every missed delta field by field would, built once for every socket that missed the same ticks", async () => {
    await fc.assert(
      fc.asyncProperty(walk, fc.integer({ min: 0, max: 29 }), async (steps, firstSent) => {
        const quotes = quotesOf(steps);
        const keeping = sink();
        keeping.full = false;
        const slow = [sink(), sink()];
        const boxes = [keeping, ...slow].map((s) => new Outbox(s, 1024, 10));
        const slots = boxes.map((b) => b.slot(7, TOPIC));
        /** The slow sockets read again (a write completing, here a reply, makes an outbox flush). */
        const readAgain = () => {
          for (const s of slow) s.full = false;
          boxes[1]!.reply("{}");
          boxes[2]!.reply("{}");
        };
        // The first `firstSent` ticks reach everyone; the rest wait in the slow sockets' slots.
        const split = Math.min(firstSent, quotes.length - 1);
        let previous: Quote | undefined;
        const deltas: Record<string, string>[] = [];
        for (const [i, quote] of quotes.entries()) {
          const tick = new RateTick(quote, TOPIC, rateMask(quote, previous));
          expect(tick.fields).toEqual(rateDelta(quote, previous));
          deltas.push(tick.fields);
          for (const slot of slots) slot.push(tick);
          previous = quote;
          if (i === split - 1) readAgain();
          await flushed();
          for (const s of slow) s.full = true;
        }
        readAgain();
        await flushed();
        // Merging the unsent deltas field by field (decision 0114's conflation) gives the same message.
        const merged = Object.assign({}, ...deltas.slice(split));
        for (const s of slow) expect(s.messages.at(-1)!.content).toEqual(merged);
        // One message for both slow sockets: the same id, so built once.
        expect(slow[0]!.messages.at(-1)!.id).toBe(slow[1]!.messages.at(-1)!.id);
        // The socket that kept up got every delta as it was.
        expect(keeping.messages.map((m) => m.content)).toEqual(deltas);
      }),
      { numRuns: 200 },
    );
  });
});
