import type { Deps } from "../../context.js";
import { demoLedger } from "../../trading/demo-ledger.js";
import { enforceCopyStopLosses } from "./copy-stop-loss.js";
import { followClose } from "./follow-close.js";
import { followOpen } from "./follow-open.js";
import { mirrorsRepository, STOPPING } from "./mirrors.repository.js";
import { finishStop } from "./stop-mirror.js";

/** Ticks between two sweeps (with the default 1 s tick, about every 15 s). */
const SWEEP_EVERY_TICKS = 15;

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
  const sweep = async () => {
    const repo = mirrorsRepository(deps.db.kysely);
    for (const parentUserId of await repo.parentUsersWithActiveMirrors()) {
      for (const mirror of await repo.activeMirrorsOf(parentUserId)) {
        for (const parent of await repo.unhandledParentOpens(mirror)) await followOpen(deps, parent, [mirror]);
      }
    }
    for (const child of await repo.childrenBehindParents()) {
      if (child.parentPositionId != null) await followClose(deps, child.parentPositionId);
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

  deps.bus.subscribe("PositionOpened", (event) => {
    enqueue(async () => {
      if ((await mirrorsRepository(deps.db.kysely).activeMirrorsOf(event.userId)).length === 0) return;
      const parent = await demoLedger(deps.db.kysely).findPosition(event.positionId);
      if (parent) await followOpen(deps, parent);
    });
  });
  deps.bus.subscribe("PositionClosed", (event) => {
    enqueue(() => followClose(deps, event.positionId, event.reason));
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
