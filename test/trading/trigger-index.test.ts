import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TriggerIndex } from "../../src/modules/trading/trigger-index.js";

const spec = (positionId: number, over: Partial<Parameters<TriggerIndex["add"]>[0]> = {}) => ({
  positionId,
  instrumentId: 1001,
  isBuy: true,
  stopLossRate: 0,
  takeProfitRate: 0,
  isTslEnabled: false,
  ...over,
});

describe("trigger index", () => {
  it("fires a long's stop-loss when the bid falls to it, and only once", () => {
    const ix = new TriggerIndex();
    ix.add(spec(1, { stopLossRate: 195, takeProfitRate: 220 }));
    expect(ix.update(1001, 196, 196.1)).toEqual([]);
    expect(ix.update(1001, 194, 194.1)).toEqual([{ positionId: 1, instrumentId: 1001, kind: "StopLoss", rate: 195 }]);
    expect(ix.update(1001, 190, 190.1)).toEqual([]);
    expect(ix.size).toBe(0);
  });
});

/** The obvious O(n) model the index must agree with. */
class NaiveTriggers {
  private readonly positions = new Map<
    number,
    { isBuy: boolean; sl: number; tp: number; tsl: boolean; peak: number; gap: number }
  >();

  add(s: ReturnType<typeof spec>, best: number): void {
    const sign = s.isBuy ? 1 : -1;
    const peak = best * sign;
    const gap = s.isTslEnabled ? clean(peak - s.stopLossRate * sign) : 0;
    this.positions.set(s.positionId, {
      isBuy: s.isBuy,
      sl: s.stopLossRate,
      tp: s.takeProfitRate,
      tsl: s.isTslEnabled && gap > 0,
      peak,
      gap,
    });
  }

  remove(id: number): void {
    this.positions.delete(id);
  }

  update(bid: number, ask: number): { positionId: number; kind: string; rate: number }[] {
    const fired: { positionId: number; kind: string; rate: number }[] = [];
    for (const [id, p] of this.positions) {
      const sign = p.isBuy ? 1 : -1;
      const x = p.isBuy ? bid : -ask;
      if (!p.tsl && p.sl > 0 && x <= p.sl * sign) fired.push({ positionId: id, kind: "StopLoss", rate: p.sl });
      else if (p.tp > 0 && x >= p.tp * sign) fired.push({ positionId: id, kind: "TakeProfit", rate: p.tp });
      else if (p.tsl) {
        p.peak = Math.max(p.peak, x);
        const stop = clean(p.peak - p.gap);
        if (x <= stop) fired.push({ positionId: id, kind: "TrailingStopLoss", rate: clean(stop * sign) });
      }
    }
    for (const f of fired) this.positions.delete(f.positionId);
    return fired.sort((a, b) => a.positionId - b.positionId);
  }
}

const clean = (x: number) => Math.round(x * 1e10) / 1e10;

describe("trigger index against a brute-force model", () => {
  const cents = (min: number, max: number) => fc.integer({ min: min * 100, max: max * 100 }).map((c) => c / 100);
  const step = fc.oneof(
    fc.record({
      op: fc.constant("add" as const),
      isBuy: fc.boolean(),
      slDistance: fc.option(cents(0.01, 20), { nil: undefined }),
      tpDistance: fc.option(cents(0.01, 20), { nil: undefined }),
      tsl: fc.boolean(),
    }),
    fc.record({ op: fc.constant("move" as const), delta: cents(-6, 6) }),
    fc.record({ op: fc.constant("remove" as const), pick: fc.nat() }),
  );

  it("fires the same positions at the same rates, step by step", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 120 }), (steps) => {
        const ix = new TriggerIndex();
        const model = new NaiveTriggers();
        let mid = 100;
        let nextId = 1;
        const live: number[] = [];
        const quote = () => ({ bid: clean(mid - 0.05), ask: clean(mid + 0.05) });
        for (const s of steps) {
          if (s.op === "add") {
            const { bid, ask } = quote();
            // Levels on the valid side of the close price, as the open use case requires.
            const close = s.isBuy ? bid : ask;
            const dir = s.isBuy ? 1 : -1;
            const sl = s.slDistance ? clean(close - dir * s.slDistance) : 0;
            const tp = s.tpDistance ? clean((s.isBuy ? ask : bid) + dir * s.tpDistance) : 0;
            if (sl <= 0 && s.slDistance) continue;
            if (tp <= 0 && s.tpDistance) continue;
            const p = spec(nextId, {
              isBuy: s.isBuy,
              stopLossRate: sl,
              takeProfitRate: tp,
              isTslEnabled: s.tsl && sl > 0,
            });
            ix.add({ ...p, bestRate: close });
            model.add(p, close);
            if (sl > 0 || tp > 0) live.push(nextId);
            nextId += 1;
          } else if (s.op === "remove") {
            if (live.length === 0) continue;
            const [id] = live.splice(s.pick % live.length, 1);
            ix.remove(id!);
            model.remove(id!);
          } else {
            mid = Math.max(1, clean(mid + s.delta));
            const { bid, ask } = quote();
            const got = ix
              .update(1001, bid, ask)
              .map(({ positionId, kind, rate }) => ({ positionId, kind, rate }))
              .sort((a, b) => a.positionId - b.positionId);
            const want = model.update(bid, ask);
            expect(got).toEqual(want);
            for (const f of got) live.splice(live.indexOf(f.positionId), 1);
          }
        }
        expect(ix.size).toBe(live.length);
      }),
      { numRuns: 300 },
    );
  });

  it("a trailing stop's current level is its best price minus the gap", () => {
    const ix = new TriggerIndex();
    ix.add({ ...spec(1, { stopLossRate: 95, isTslEnabled: true }), bestRate: 100 });
    ix.add({ ...spec(2, { isBuy: false, stopLossRate: 105, isTslEnabled: true }), bestRate: 100 });
    ix.update(1001, 103, 103.1);
    expect(ix.currentStop(1)).toBe(98);
    expect(ix.currentStop(2)).toBe(105);
    const fired = ix.update(1001, 96.9, 97);
    expect(fired).toEqual([{ positionId: 1, instrumentId: 1001, kind: "TrailingStopLoss", rate: 98 }]);
    // The short's stop followed the ask down to 97, keeping its gap of 5.
    expect(ix.currentStop(1)).toBeUndefined();
    expect(ix.currentStop(2)).toBe(102);
  });
});
