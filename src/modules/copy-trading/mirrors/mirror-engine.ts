import type { PositionOpened } from "../../../core/events.js";
import type { Deps } from "../../context.js";
import { demoLedger } from "../../trading/demo-ledger.js";
import { copyBatchRepository } from "./copy-batch.repository.js";
import { enforceCopyStopLosses } from "./copy-stop-loss.js";
import { followClose } from "./follow-close.js";
import { followOpen } from "./follow-open.js";
import { STOPPING } from "./mirrors.repository.js";
import { finishStop } from "./stop-mirror.js";

/** Ticks between two sweeps (with the default 1 s tick, about every 15 s). */
const SWEEP_EVERY_TICKS = 15;
/** The most queued opens one statement checks (its `in` list). */
const OPENS_PER_TASK = 500;

interface Engine {
  /** Resolves when every task queued so far is done (tests, the benchmark, shutdown). */
  idle(): Promise<void>;
  sweep(): Promise<void>;
}

const engines = new WeakMap<Deps, Engine>();

/** The copy engine of these deps (registered by registerMirrorEngine). */
export function mirrorEngineOf(deps: Deps): Engine | undefined {
  return engines.get(deps);
}

/**
 * The mirroring engine (decision 0145). The copied account's order commits and answers first; its
 * PositionOpened / PositionClosed then queue the copies' work here, off the request path, in order
 * (an open is copied before its close is followed). What the events miss (a crash between commit
 * and the queue, an instance gone) the sweep finds from the store at the first tick and every few after:
 * copied opens with no claim row, copies bigger than their parent, stops not finished. A copy
 * opens at most once because its claim row's primary key (mirror, copied position) is written in
 * the copy's own transaction; closes are decided by state under the position's version guard.
 */
export function registerMirrorEngine(deps: Deps): void {
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (task: () => Promise<unknown>) => {
    // Each task starts on a later turn of the event loop, never inside the trader's publish.
    chain = chain
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => deps.log.error({ err: error }, "copy engine task failed"),
      );
  };
  // What this process has followed in full: copied positions every mirror has handled (opens), and
  // the version of a copied position whose copies were brought in step (closes). The sweep skips
  // them, so with nothing missed it asks the store one cheap question (decision 0162).
  const opensFollowed = new Set<number>();
  const closesFollowed = new Map<number, number>();
  const sweep = async () => {
    const batch = copyBatchRepository(deps.db.kysely);
    const candidates = await batch.sweepCandidates();
    // Opens: every unhandled (copied position, mirror) pair, then batches per position.
    const opens = candidates.filter((c) => c.status === "open" && !opensFollowed.has(c.positionId));
    const missed = new Map<number, number[]>();
    for (const { parentPositionId, mirrorId } of await batch.unhandledOpens(opens.map((c) => c.positionId))) {
      missed.set(parentPositionId, [...(missed.get(parentPositionId) ?? []), mirrorId]);
    }
    for (const [parentPositionId, mirrorIds] of missed) {
      const parent = await demoLedger(deps.db.kysely).findPosition(parentPositionId);
      if (parent) await followOpen(deps, parent, mirrorIds);
    }
    for (const c of opens) opensFollowed.add(c.positionId);
    // Closes: each copied position closed or changed since its copies were last brought in step.
    for (const c of candidates) {
      if (c.version === 1 && c.status === "open") continue;
      if (closesFollowed.get(c.positionId) === c.version) continue;
      await followClose(deps, c.positionId);
      if (c.status === "open") closesFollowed.set(c.positionId, c.version);
    }
    const stopping = await deps.db.kysely
      .selectFrom("copyMirrors")
      .select("mirrorId")
      .where("status", "=", STOPPING)
      .execute();
    for (const { mirrorId } of stopping) await finishStop(deps, mirrorId);
  };
  engines.set(deps, {
    idle: async () => {
      let seen: Promise<void> | undefined;
      while (seen !== chain) {
        seen = chain;
        await chain;
      }
    },
    sweep: async () => {
      enqueue(sweep);
      await chain;
    },
  });

  // Opens queued together are checked together (decision 0183): one task and one statement ask
  // which of their owners anyone copies, instead of a task and a statement per order. A task is
  // queued when the first open arrives and takes every open that arrived until it runs, so an open
  // is never followed later than its own task would have been (a close queued after it still runs
  // after it).
  const opens: PositionOpened[] = [];
  const followOpens = async () => {
    // Everything queued, in order, before this task ends: what follows it in the chain (a close)
    // came after these opens. An open that arrives meanwhile may be taken here too (earlier, never later).
    try {
      while (opens.length > 0) {
        const taken = opens.splice(0, OPENS_PER_TASK);
        const copied = await copyBatchRepository(deps.db.kysely).withActiveMirrors([
          ...new Set(taken.map((e) => e.userId)),
        ]);
        for (const event of taken) {
          // One open failing does not stop the others (each was its own task before); the sweep retries it.
          try {
            if (copied.has(event.userId)) {
              const parent = await demoLedger(deps.db.kysely).findPosition(event.positionId);
              if (parent) await followOpen(deps, parent);
            }
            opensFollowed.add(event.positionId);
          } catch (error) {
            deps.log.error({ err: error }, "copy engine task failed");
          }
        }
      }
    } finally {
      // The check itself failed (the store away): what is still queued gets a task of its own.
      if (opens.length > 0) enqueue(followOpens);
    }
  };
  deps.bus.subscribe("PositionOpened", (event) => {
    opens.push(event);
    if (opens.length === 1) enqueue(followOpens);
  });
  deps.bus.subscribe("PositionClosed", (event) => {
    enqueue(async () => {
      await followClose(deps, event.positionId, event.reason);
      if (event.fullyClosed) opensFollowed.delete(event.positionId);
      if (event.fullyClosed) closesFollowed.delete(event.positionId);
    });
  });
  // The first tick (the server has started its market) and every few after: a CLI command, which
  // opens these deps without running the market, never sweeps.
  let ticks = 0;
  let stopsQueued = false;
  deps.market.onTick(() => {
    if (ticks++ % SWEEP_EVERY_TICKS === 0) enqueue(sweep);
    // Copy stop-losses every tick, at most one check queued at a time.
    if (!stopsQueued) {
      stopsQueued = true;
      enqueue(async () => {
        stopsQueued = false;
        await enforceCopyStopLosses(deps);
      });
    }
  });
}
