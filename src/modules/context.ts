import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Actor } from "../core/actor.js";
import type { Clock } from "../core/clock.js";
import type { DomainEvent, EventBus } from "../core/events.js";
import type { Db } from "../infra/db/database.js";
import type { Executor } from "../infra/db/executor.js";
import { runTransaction } from "../infra/db/transactions.js";
import type { MarketEngine } from "./market/engine.js";

/** What every use case may use; built once by buildApp (or the CLI) and shared. */
export interface Deps {
  readonly db: Db;
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly config: Config;
  readonly log: Logger;
  /** Current prices and the tick loop (the market engine); the triggers listen to it. */
  readonly market: MarketEngine;
}

/** One call of a use case: the shared deps plus who is calling. */
export interface Ctx extends Deps {
  readonly actor: Actor;
}

export const withActor = (deps: Deps, actor: Actor): Ctx => ({ ...deps, actor });

/**
 * Runs `work` in one transaction; the events it records are published only after commit, so a
 * subscriber never sees a change that was rolled back. A transaction PostgreSQL aborts for a
 * deadlock or a serialization failure is run again (bounded): `work` must be safe to rerun.
 */
export async function transact<T>(
  deps: Deps,
  work: (trx: Executor, record: (event: DomainEvent) => void) => Promise<T>,
): Promise<T> {
  let events: DomainEvent[] = [];
  const result = await runTransaction(deps.db.kysely, (trx) => {
    events = [];
    return work(trx, (e) => events.push(e));
  });
  await deps.bus.publish(events);
  return result;
}
