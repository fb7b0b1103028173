import { createRequire } from "node:module";
import { startWorker } from "../heap.js";

/** One statement for the bulk writer: run once (`rows` absent), or once per row of parameters. */
export interface BulkStep {
  sql: string;
  rows?: readonly (readonly unknown[])[];
}

/**
 * A second SQLite connection to the same file, in a worker thread (decision 0180): bulk writes run
 * there, so the event loop keeps serving requests while they do. WAL lets the main connection read
 * beside it; a main-thread write waits for the writer's current transaction only, with the event loop free
 * (the driver retries while the file is locked, decision 0186).
 */
export interface BulkWriter {
  /** Runs `steps` in one transaction (`begin immediate` … `commit`); rejects, rolled back, if one fails. */
  transaction(steps: readonly BulkStep[]): Promise<void>;
  /** Runs `steps` one after another, each its own autocommit statement (DDL such as `create index`). */
  run(steps: readonly BulkStep[]): Promise<void>;
  close(): Promise<void>;
}

// The worker is plain CommonJS given as source, so it runs the same under tsc's output and under
// vitest (which does not transform a worker's file). It only prepares and runs what it is sent.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = " + workerData.synchronous);
db.pragma("busy_timeout = 5000");
db.pragma("temp_store = MEMORY");
db.pragma("cache_size = -" + workerData.cacheKiB);
db.pragma("foreign_keys = OFF");
// create index sorts with a helper thread (measured ~10% faster over 1M rows, decision 0180).
db.pragma("threads = 2");
const statements = new Map();
const prepared = (sql) => {
  let s = statements.get(sql);
  if (!s) { s = db.prepare(sql); statements.set(sql, s); }
  return s;
};
const runSteps = (steps) => {
  for (const step of steps) {
    if (step.rows) { const s = prepared(step.sql); for (const row of step.rows) s.run(row); }
    else db.exec(step.sql);
  }
};
const inTransaction = db.transaction(runSteps);
parentPort.on("message", (m) => {
  if (m.close) { db.close(); parentPort.postMessage({ id: m.id, ok: true }); return; }
  try {
    if (m.transaction) inTransaction.immediate(m.steps); else runSteps(m.steps);
    parentPort.postMessage({ id: m.id, ok: true });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  }
});
`;

/** Page cache of the writer's connection: its statements touch the whole table and its indexes. */
const WRITER_CACHE_KIB = 262_144;

export function openBulkWriter(file: string, synchronous: "normal" | "full"): BulkWriter {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = startWorker(WORKER_SOURCE, {
    driver,
    file,
    synchronous: synchronous === "full" ? "FULL" : "NORMAL",
    cacheKiB: WRITER_CACHE_KIB,
  });
  worker.unref();
  let next = 0;
  let failed: Error | undefined;
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  worker.on("message", (m: { id: number; ok?: true; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) p?.reject(new Error(m.error));
    else p?.resolve();
  });
  const fail = (error: Error) => {
    failed = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  worker.on("error", fail);
  worker.on("exit", () => fail(new Error("the bulk writer's worker exited")));
  const send = (message: object) =>
    new Promise<void>((resolve, reject) => {
      if (failed) return reject(failed);
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
  return {
    transaction: (steps) => send({ steps, transaction: true }),
    run: (steps) => send({ steps, transaction: false }),
    async close() {
      if (!failed) await send({ close: true }).catch(() => undefined);
      await worker.terminate();
    },
  };
}
