import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SandboxClock } from "../../src/modules/sandbox/sandbox-clock.js";

/** A base clock that moves on by `step` ms at every reading, as a real one may between two reads. */
const ticking = (start: number, step: number) => {
  let t = start;
  return {
    now: () => {
      const at = new Date(t);
      t += step;
      return at;
    },
  };
};

describe("the sandbox clock's state", () => {
  it("reports exactly the offset it holds, however the base clock moves between readings", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 86_400_000 }), { maxLength: 5 }),
        (step, advances) => {
          const clock = new SandboxClock(ticking(1_700_000_000_000, step));
          let expected = 0;
          for (const ms of advances) {
            clock.advance(ms);
            expected += ms;
            expect(clock.state).toMatchObject({ offsetMs: expected, frozen: false });
          }
          clock.reset();
          expect(clock.state).toMatchObject({ offsetMs: 0, frozen: false });
        },
      ),
    );
  });
});
