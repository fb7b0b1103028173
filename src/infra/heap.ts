import { PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import { Worker } from "node:worker_threads";

/**
 * V8's heap sizing for `serve` (docs/decisions/0196), set from the CLI's entry before the rest of
 * the program is loaded. Node's defaults suit a machine's worth of memory, not a server meant to
 * stay small:
 * - the young generation grows to two 16 MB semi-spaces while the modules load, and stays there;
 * - the old generation may grow up to 4x its live size before a full collection.
 * `--max-semi-space-size` and `--max-old-space-size` are read once, when the heap is made, so
 * `v8.setFlagsFromString` cannot set them (decision 0082 found the first ignored). Two flags that
 * V8 reads at each collection do the same work:
 * - `--semi-space-growth-factor`: 1 (no growth) while the server starts and while the young
 *   generation is at its cap, 2 while it is below;
 * - `--heap-growing-percent`: the old generation's next limit is its live size plus this share.
 * Node resets V8's flags when it starts a worker thread (measured: the growth factor is back to 2
 * while the worker's thread starts, after `new Worker` has returned), so workers are made by
 * `startWorker`, which sets them again once the thread runs, and they are set after each collection.
 */
export const HEAP = {
  /** Each of the two semi-spaces of the young generation, at most (V8's default: 16 MB). */
  semiSpaceMb: 8,
  /** How far the old generation grows past its live size before a full collection (default: up to 300%). */
  growingPercent: 30,
} as const;

/** Flags an operator may give Node for the same purpose: when any is given, theirs stand alone. */
const OPERATOR_FLAGS = /semi[-_]space|heap[-_]growing|max[-_]old[-_]space|max[-_]heap[-_]size/;

/**
 * Where this process's sizing stands. V8's flags are the process's own, so this is too (not the
 * state of an app or of its deps): off (not sized, or the operator's flags), starting, serving.
 */
let phase: "off" | "starting" | "serving" = "off";

const CAP_BYTES = HEAP.semiSpaceMb * 2 ** 20;

/**
 * Sizes V8's heap as `HEAP` says, unless the operator's own Node options size it (`nodeOptions`:
 * NODE_OPTIONS, given by the entry from `nodeOptionsOf`, before the rest of the configuration is
 * loaded). The young generation does not grow until `letYoungGenerationGrow`. Returns whether it did.
 */
export function sizeHeapForServer(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  if (OPERATOR_FLAGS.test(`${execArgv.join(" ")} ${nodeOptions ?? ""}`)) return false;
  phase = "starting";
  reapplyHeapFlags();
  new PerformanceObserver(reapplyHeapFlags).observe({ entryTypes: ["gc"] });
  return true;
}

/** How long `startWorker` waits, at most, for a worker's thread to run. */
const WORKER_START_WAIT_MS = 2_000;

/**
 * `new Worker(source, { eval: true, workerData })`, for the server's own threads. A worker's thread
 * resets V8's flags while it starts, some 20–40 ms after the constructor returned; a scavenge in
 * that window doubled the young generation past its cap, for good (decision 0200: 32 MB from the
 * checkpointer's start on, in most runs). Setting them again from the main thread when the
 * worker is `online`, or from the worker's first statement, still left the window open. So when
 * the heap is sized, the main thread waits (blocked) until the worker's first statement has run,
 * and sets the flags again: a few tens of milliseconds, once per worker (the checkpointer at open,
 * the bulk writer once per daily pass). `source` is CommonJS; its `workerData` gains `started`.
 */
export function startWorker(source: string, workerData: Record<string, unknown>): Worker {
  const started = new Int32Array(new SharedArrayBuffer(4));
  const signal = `{ const s = require("node:worker_threads").workerData.started; Atomics.store(s, 0, 1); Atomics.notify(s, 0); }\n`;
  const worker = new Worker(signal + source, { eval: true, workerData: { ...workerData, started } });
  if (phase !== "off") {
    Atomics.wait(started, 0, 0, WORKER_START_WAIT_MS);
    reapplyHeapFlags();
  }
  return worker;
}

/**
 * Sets the flags again (after each collection, and once a worker's thread runs); does nothing
 * unless `sizeHeapForServer` sized the heap.
 */
function reapplyHeapFlags(): void {
  if (phase === "off") return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP.growingPercent}`);
  const grow = phase === "serving" && semiSpaceBytes() < CAP_BYTES;
  v8.setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`);
}

/**
 * Once the server is started: the young generation is grown to `HEAP.semiSpaceMb` per semi-space
 * at once, and no further. The growth is made here, synchronously (objects kept across a few
 * scavenges: a few milliseconds), because growth left to V8 overshoots: an observer of collections
 * runs only between event-loop turns, and one turn may hold several collections, each doubling the
 * young generation. Later, V8 shrinks the young generation when allocation is slow; the observer
 * then lets it grow (doubling) back to the cap. Does nothing unless `sizeHeapForServer` sized the heap.
 */
export function letYoungGenerationGrow(): void {
  if (phase === "off") return;
  v8.setFlagsFromString("--semi-space-growth-factor=2");
  let kept: number[][] = [];
  for (let i = 0; i < 100_000 && semiSpaceBytes() < CAP_BYTES; i++) {
    kept.push(new Array<number>(1024).fill(i));
    if (kept.length > 1024) kept = [];
  }
  phase = "serving";
  reapplyHeapFlags();
}

const semiSpaceBytes = () =>
  (v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0) / 2;
