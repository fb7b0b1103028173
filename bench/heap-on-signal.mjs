// Preloaded into a benchmark's server (`node --import bench/heap-on-signal.mjs`): SIGURG (a signal
// nothing else uses; its default is to ignore it) writes a heap snapshot to $HEAP_SNAPSHOT_FILE.
// So a run snapshots the heap as its measured rounds left it (bench/many.mjs --heap-snapshot);
// bench/heap-summary.mjs says what it holds.
import { renameSync } from "node:fs";
import v8 from "node:v8";

const file = process.env.HEAP_SNAPSHOT_FILE;
if (!file) throw new Error("heap-on-signal needs HEAP_SNAPSHOT_FILE");
process.on("SIGURG", () => {
  // Whole or absent: the runner waits for the name.
  v8.writeHeapSnapshot(`${file}.part`);
  renameSync(`${file}.part`, file);
});
