import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { HEAP, letYoungGenerationGrow, sizeHeapForServer } from "../../src/infra/heap.js";

/*
 * `serve`'s heap sizing (docs/decisions/0196) stands aside when the operator sizes the heap with
 * Node's own options. The sized path sets V8's flags for the whole process, so it runs in a child
 * process of its own on the built program (`dist`, which `npm test` builds first) (and in every test that starts `node dist/main.js serve`).
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

  it("does nothing once listening when it did not size the heap", () => {
    expect(() => letYoungGenerationGrow()).not.toThrow();
  });

  it("never grows the young generation past its cap while a worker's thread starts, under allocation that would grow it", () => {
    // A worker's thread resets V8's flags while it starts (decision 0200): a scavenge in that
    // window doubled the young generation. Here the main thread allocates from the moment the
    // worker is made, as a loaded server does, and the largest size seen is compared with the cap.
    // V8 may shrink the young generation meanwhile (it did in one CI run: 8 MB after): a shrink is
    // V8's own choice, which the sizing lets grow back to the cap and no further, so only growth
    // past the cap is a failure.
    const heap = fileURLToPath(new URL("../../dist/infra/heap.js", import.meta.url));
    const script = `
      import v8 from "node:v8";
      const { sizeHeapForServer, letYoungGenerationGrow, startWorker } = await import(${JSON.stringify(heap)});
      const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
      sizeHeapForServer([], undefined);
      letYoungGenerationGrow();
      const atCap = young();
      const worker = startWorker("require('node:worker_threads').parentPort.postMessage(require('node:worker_threads').workerData.hello)", { hello: "hi" });
      const said = new Promise((resolve) => worker.once("message", resolve));
      let kept = [];
      let most = atCap;
      for (let i = 0; i < 3_000_000; i++) {
        kept.push({ a: i, b: "x" + i, c: [i] });
        if (kept.length > 200_000) kept = [];
        if (i % 1_000 === 0) most = Math.max(most, young());
      }
      console.log(JSON.stringify({ atCap, most: Math.max(most, young()), said: await said }));
    `;
    // From a file: with `-e`, the worker's source would inherit `--input-type=module`.
    const file = join(mkdtempSync(join(tmpdir(), "heap-")), "worker-start.mjs");
    writeFileSync(file, script);
    const out = execFileSync(process.execPath, [file], { encoding: "utf8" });
    const { atCap, most, said } = JSON.parse(out.trim().split("\n").pop() ?? "{}");
    const cap = 2 * HEAP.semiSpaceMb * 2 ** 20;
    expect(atCap).toBe(cap);
    expect(most).toBe(cap);
    expect(said).toBe("hi");
  }, 30_000);
});
