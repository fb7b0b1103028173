import type { Insertable } from "kysely";
import type { BulkWriter } from "../../../infra/db/bulk-writer.js";
import type { AccountSnapshotsTable, PeopleStatsTable } from "../../../infra/db/schema.js";
import type { Deps } from "../../context.js";
import { rebuildPlan, snapshotSteps } from "./stats-rebuild.repository.js";

/** What a pass writes for one account. */
export interface ClosedAccount {
  userId: string;
  snapshot: Insertable<AccountSnapshotsTable>;
  stats: Insertable<PeopleStatsTable>[];
  holdings: { userId: string; instrumentId: number; pct: number }[];
}

export interface PassSink<B> {
  write(batch: B): Promise<void>;
  finish(): Promise<void>;
  abandon(): Promise<void>;
  /** Where the writer's time went (ms), for the bench. */
  timings?: WriterTimings;
}

export interface WriterTimings {
  /** Whether the previous pass's table was updated in place (decision 0195) rather than built anew. */
  reused: boolean;
  /** The main thread waiting for the writer's batch before sending the next. */
  waited: number;
  /** Deleting the kept rows this pass did not write. */
  prune: number;
  indexes: number;
  swap: number;
}

/**
 * The SQLite pass's writes, on the bulk writer's connection in a worker thread (decision 0180): each
 * batch's snapshots and holdings are upserted and its search rows written to `people_stats_next`,
 * one transaction per batch, while the main thread reads and computes the next batch (one batch in
 * flight). `people_stats_next` is the table the last swap replaced, less its indexes on figures, or
 * an empty table (decision 0195). At the end the staging table gets the indexes it lacks (one sort
 * each) and is swapped in, with the privacy and copiers of users touched meanwhile reapplied. Requests never wait on the event loop
 * for any of it; a main-thread write waits for the writer's current statement without blocking the event
 * loop (the driver retries while the file is locked, decision 0186).
 */
export async function stagedSink<B>(
  deps: Deps,
  bulk: BulkWriter,
  closes: (batch: B) => Promise<readonly ClosedAccount[]>,
): Promise<PassSink<B>> {
  const plan = await rebuildPlan(deps.db.kysely);
  try {
    await bulk.transaction([...plan.begin, { sql: "delete from people_stats_touched" }]);
  } catch (error) {
    await bulk.close();
    throw error;
  }
  let inFlight: Promise<void> = Promise.resolve();
  const timings: WriterTimings = { reused: plan.reuses, waited: 0, prune: 0, indexes: 0, swap: 0 };
  const periods = new Set<string>();
  return {
    timings,
    async write(batch) {
      const part = await closes(batch);
      const stats = part.flatMap((c) => c.stats);
      for (const r of stats) periods.add(r.period);
      const steps = [
        ...snapshotSteps(
          deps.db.kysely,
          part.map((c) => c.snapshot),
          part.map((c) => c.userId),
          part.flatMap((c) => c.holdings),
        ),
        ...plan.rows(stats),
      ];
      const t = performance.now();
      await inFlight;
      timings.waited += performance.now() - t;
      inFlight = bulk.transaction(steps);
      // A failure surfaces at the next batch or at the end; never unobserved meanwhile.
      inFlight.catch(() => undefined);
    },
    async finish() {
      try {
        let t = performance.now();
        await inFlight;
        timings.waited += performance.now() - t;
        t = performance.now();
        const prune = plan.prune([...periods]);
        if (prune.length > 0) await bulk.transaction(prune);
        timings.prune = performance.now() - t;
        t = performance.now();
        await bulk.run(plan.indexes);
        timings.indexes = performance.now() - t;
        t = performance.now();
        await bulk.transaction(plan.swap);
        timings.swap = performance.now() - t;
      } finally {
        await bulk.close();
      }
    },
    async abandon() {
      await inFlight.catch(() => undefined);
      await bulk.run([{ sql: "drop table if exists people_stats_next" }]).catch(() => undefined);
      await bulk.close();
    },
  };
}
