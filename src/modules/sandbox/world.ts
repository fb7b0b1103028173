import { isoNow } from "../../core/clock.js";
import { AppError } from "../../core/errors.js";
import type { Ctx, Deps } from "../context.js";
import { RandomWalkSource } from "../market/price-sources.js";
import { loadAlerts } from "../price-alerts/alert-watch.js";
import { loadEntryOrders } from "../trading/entry-orders/entry-watch.js";
import { loadTriggers } from "../trading/triggers.js";
import { type SnapshotSummary, sandboxRepository, worldStore } from "./sandbox.repository.js";
import { requireOperator, sandboxOf } from "./sandbox-access.js";

/**
 * The world controls (decision 0152): save the world as a named snapshot, and reset it to a
 * snapshot or to the seed. `serve` saves the snapshot `start` once it has seeded and issued the
 * credentials it prints, so a reset without a name gives back that world, credentials included.
 */

/** The snapshot `serve` saves at start (with the sandbox on), which a reset without a name restores. */
export const START_SNAPSHOT = "start";

export interface WorldStep {
  step: string;
  rows: number;
  elapsedMs: number;
}

/** Seeds the demo world; given by the caller (src/seed sits above the modules). */
export type Seeder = (deps: Deps, progress: (step: string) => void) => Promise<unknown>;

export async function saveSnapshot(ctx: Ctx, name: string): Promise<SnapshotSummary> {
  requireOperator(ctx.actor);
  sandboxOf(ctx);
  const rows = await worldStore(ctx.db).dump();
  const summary: SnapshotSummary = {
    name,
    createdAt: isoNow(ctx.clock),
    tables: Object.keys(rows).length,
    rows: Object.values(rows).reduce((n, r) => n + r.length, 0),
  };
  await sandboxRepository(ctx.db.kysely).saveSnapshot(summary, rows);
  return summary;
}

export async function listSnapshots(ctx: Ctx): Promise<SnapshotSummary[]> {
  requireOperator(ctx.actor);
  sandboxOf(ctx);
  return sandboxRepository(ctx.db.kysely).listSnapshots();
}

/**
 * Empties the world and fills it again from the named snapshot, else from `start`, else from the
 * seed; then the in-memory state follows: the triggers and alerts are loaded again, prices go back
 * to their seed with a new walk, pauses, scripts and faults are dropped and the clock is real again.
 * `progress` hears each step as it is done (the CLI prints them); the answer lists them all.
 */
export async function resetWorld(
  ctx: Ctx,
  snapshot: string | undefined,
  seed: Seeder,
  progress: (step: WorldStep) => void = () => {},
) {
  requireOperator(ctx.actor);
  const sandbox = sandboxOf(ctx);
  const repo = sandboxRepository(ctx.db.kysely);
  const started = performance.now();
  const steps: WorldStep[] = [];
  const note = (step: string, rows: number) => {
    const done = { step, rows, elapsedMs: Math.round(performance.now() - started) };
    steps.push(done);
    progress(done);
  };
  const named = snapshot ?? START_SNAPSHOT;
  const rows = await repo.loadSnapshot(named);
  if (!rows && snapshot !== undefined) throw new AppError("NotFound", `No snapshot "${snapshot}"`);
  const source = rows ? named : "seed";
  // Nothing fires while the world is replaced: no timed tick moves a price, no fault is injected.
  sandbox.prices.pause();
  sandbox.faults.clear();
  const keysBefore = await repo.keyPairs();
  try {
    await worldStore(ctx.db).replace(rows ?? {}, (step, n) =>
      note(step === "emptied" ? "emptied" : `restored ${step}`, n),
    );
    let kept: Set<string>;
    try {
      if (!rows) await seed(ctx, (step) => note(`seeded ${step}`, 0));
      kept = new Set((await repo.keyPairs()).map((k) => k.id));
    } catch (error) {
      // The store was replaced even so: no kept social answer or poll answer may outlive it.
      await ctx.bus.publish(everythingChanged(isoNow(ctx.clock))).catch(() => {});
      throw error;
    }
    sandbox.clock.reset();
    const at = isoNow(ctx.clock);
    // Key pairs the reset removed stop working at once in every instance (their verified cache).
    await ctx.bus.publish([
      ...keysBefore
        .filter((k) => !kept.has(k.id))
        .map((k) => ({ type: "KeyPairRevoked" as const, keyPairId: k.id, userId: k.userId, occurredAt: at })),
      ...everythingChanged(at),
    ]);
    ctx.triggers.index.clear();
    ctx.triggers.firedElsewhere.clear();
    note("watched triggers", await loadTriggers(ctx));
    ctx.alerts.index.clear();
    note("watched price alerts", await loadAlerts(ctx));
    ctx.entryOrders.index.clear();
    ctx.entryOrders.firedElsewhere.clear();
    note("watched entry orders", await loadEntryOrders(ctx));
    ctx.market.restartPrices();
    note("prices at their seed", 0);
  } finally {
    sandbox.prices.reset(new RandomWalkSource(ctx.config.market.seed, ctx.config.market.volatility));
  }
  return { source, steps };
}

/**
 * The notifications are the restored ones: every instance forgets its kept poll answers. So are
 * posts, comments, likes and profiles: every instance redoes its kept social answers (on SQLite
 * they would otherwise be renewed at their age, as this process's own writes: decision 0212).
 */
const everythingChanged = (at: string) =>
  [
    { type: "NotificationsChanged", userIds: "all", occurredAt: at },
    { type: "SocialChanged", postIds: [], userIds: [], listings: true, everywhere: true, occurredAt: at },
  ] as const;
