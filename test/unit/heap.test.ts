import { describe, expect, it } from "vitest";
import { letYoungGenerationGrow, reapplyHeapFlags, sizeHeapForServer } from "../../src/infra/heap.js";

/*
 * `serve`'s heap sizing (docs/decisions/0196) stands aside when the operator sizes the heap with
 * Node's own options. Only that path is run here: the other sets this test process's V8 flags. The
 * sized path runs in every test that starts `node dist/main.js serve` (test/faults/kill-*.test.ts).
 */
describe("serve's heap sizing", () => {
  it("leaves the heap to the operator's own Node options", () => {
    for (const [execArgv, nodeOptions] of [
      [["--max-semi-space-size=32"], undefined],
      [["--import", "./x.mjs"], "--max-old-space-size=512"],
      [[], "--max_heap_size=256"],
      [[], "--heap-growing-percent=50"],
    ] as const) {
      expect(sizeHeapForServer(execArgv, nodeOptions), `${execArgv} ${nodeOptions}`).toBe(false);
    }
  });

  it("does nothing after a worker or once listening when it did not size the heap", () => {
    expect(() => reapplyHeapFlags()).not.toThrow();
    expect(() => letYoungGenerationGrow()).not.toThrow();
  });
});
