import { createRequire } from "node:module";
import { startWorker } from "../heap.js";

/** How often the background connection copies the write-ahead log back into the database file. */
export const CHECKPOINT_EVERY_MS = 250;

/**
 * The main connection's own checkpoint threshold while a background checkpointer runs: a safety
 * net only (a checkpointer that stopped or fell behind), far above what the background keeps
 * (SQLite's default is 1,000 pages).
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 20_000;

export interface Checkpointer {
  close(): Promise<void>;
}

// Runs in a worker thread: its own connection to the file, a PASSIVE checkpoint on a timer (it
// never waits for or blocks the writer), a last one on close. Plain CommonJS, so it runs the same
// from dist/ and under the test runner; better-sqlite3's path is resolved by the main thread.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("synchronous = " + workerData.synchronous);
const checkpoint = () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy or failing storage: the next turn tries again; the writer's own threshold is the net.
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on("message", () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints a WAL-mode SQLite file from a worker thread (decision 0184), so the event loop's
 * commits only append to the log: with SQLite's automatic checkpoint, the commit that crosses
 * 1,000 pages of log copies them into the file and syncs it, blocking every request for that
 * long. Durability is the log's, as before: a checkpoint only copies committed pages.
 */
export function startCheckpointer(path: string, synchronous: "normal" | "full"): Checkpointer {
  const worker = startWorker(WORKER, {
    module: createRequire(import.meta.url).resolve("better-sqlite3"),
    path,
    synchronous: synchronous === "full" ? "FULL" : "NORMAL",
    everyMs: CHECKPOINT_EVERY_MS,
  });
  // A worker that fails (the file went away) leaves the writer's own threshold to checkpoint.
  worker.on("error", () => {});
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    async close() {
      // Held while it finishes: an unref'ed worker would let the process end (exit code 0)
      // before whatever awaits the close (a CLI command's error, say) has run.
      worker.ref();
      worker.postMessage("close");
      await exited;
    },
  };
}
