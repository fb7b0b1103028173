import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Actor } from "../core/actor.js";
import type { Clock } from "../core/clock.js";
import type { DomainEvent, DomainEventType, EventBus, EventOf } from "../core/events.js";
import type { Market } from "../core/market.js";
import type { SecretBox } from "../core/secrets.js";
import type { Db } from "../infra/db/database.js";
import type { Executor } from "../infra/db/executor.js";
import type { Metrics } from "../infra/metrics.js";
import type { RateLimitStore } from "../infra/ratelimit/index.js";

/**
 * What every use case may use, and everything a process keeps in memory beside its store: made
 * once by `createDeps` (src/runtime.ts), which every app and CLI command uses, and closed by
 * `closeDeps`. Two deps never share state, so several apps in one process (tests, instances) are
 * as separate as several processes (docs/decisions/0094).
 *
 * A module that keeps state of its own declares its member beside the code that uses it
 * (`declare module "../context.js"`, as the HTTP layer extends Fastify's request): `triggers`
 * (trading/triggers.ts), `instrumentCache` (market/find-instruments.ts), `signingKeys`
 * (oauth/signing-keys.ts), `externalKeys` (oauth/access-tokens.ts), `trending`
 * (social/feeds/read-feed.ts), `realtime` and `positionUpdates` (realtime/hub.ts), `alerts`
 * (price-alerts/alert-watch.ts), `sandbox` (sandbox/sandbox-state.ts). `createDeps` makes every
 * member: the type checker holds it to that.
 * `metrics` (infra/metrics.ts) is the Prometheus registry of these deps: a module registers its
 * gauges there (docs/architecture.md, "Adding a metric").
 */
export interface Deps {
  readonly db: Db;
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly config: Config;
  readonly log: Logger;
  /** Current prices and the tick loop (the market engine); the triggers listen to it. */
  readonly market: Market;
  /** The rate limiter's counters: this process's memory, or Redis shared by every instance. */
  readonly rateLimits: RateLimitStore;
  /** Seals secrets kept in the store (signing private keys) under the deployment's key (0105). */
  readonly secrets: SecretBox;
  /**
   * The Prometheus registry of these deps and the metrics several layers feed (decision 0106);
   * a module registers its own gauges on `metrics.registry` or with `metrics.gauge`.
   */
  readonly metrics: Metrics;
}

/** One call of a use case: the shared deps plus who is calling. */
export interface Ctx extends Deps {
  readonly actor: Actor;
}

/** For each deps, a constructor of its calls' contexts (see `withActor`). */
type MakeContext = new (actor: Actor) => Ctx;
const contextsOf = new WeakMap<Deps, MakeContext>();

/**
 * `deps` with `actor`: an object holding only the actor, whose prototype is `deps` (decision 0200),
 * not a copy. A copy of deps' two dozen members was made at least once per request (0.4 µs each,
 * and the copy's members were read by hash lookups: it had too many for V8's fast properties).
 * Given a context, the new one shares that context's deps.
 */
export function withActor(deps: Deps, actor: Actor): Ctx {
  const base: Deps = Object.hasOwn(deps, "actor") ? Object.getPrototypeOf(deps) : deps;
  let Context = contextsOf.get(base);
  if (!Context) {
    Context = function (this: { actor: Actor }, a: Actor) {
      this.actor = a;
    } as unknown as MakeContext;
    Context.prototype = base;
    contextsOf.set(base, Context);
  }
  return new Context(actor);
}

/**
 * Runs `work` in one transaction; the events it records are published only after commit, so a
 * subscriber never sees a change that was rolled back. A transaction PostgreSQL aborts for a
 * deadlock or a serialization failure is run again (bounded): `work` must be safe to rerun. On
 * SQLite, works asked for together share one commit, each in its own savepoint, and each answers
 * only after that commit (group commit, decision 0172).
 */
export async function transact<T>(
  deps: Deps,
  work: (trx: Executor, record: (event: DomainEvent) => void) => Promise<T>,
): Promise<T> {
  let events: DomainEvent[] = [];
  const handlers = writeHandlersByDeps.get(baseOf(deps));
  const result = await deps.db.transaction(async (trx) => {
    events = [];
    const record = (e: DomainEvent) => {
      events.push(e);
    };
    const value = await work(trx, record);
    if (!handlers) return value;
    // Events recorded by a handler are handled too (the list grows as it is walked).
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      const list = handlers.get(event.type);
      if (list) for (const handler of list) await handler(trx, event, record);
    }
    return value;
  });
  await deps.bus.publish(events);
  return result;
}

/**
 * A handler run inside the transaction that recorded its event, before it commits (decision 0204):
 * what it writes commits with the write that caused it, or not at all. It may record events of its
 * own, published after the commit with the others. It fails the transaction if it throws, so it
 * must be a write that cannot fail where the cause succeeded (a row for a user the cause names).
 */
export type WriteHandler<T extends DomainEventType> = (
  trx: Executor,
  event: EventOf<T>,
  record: (event: DomainEvent) => void,
) => Promise<void>;

type WriteHandlers = Map<DomainEventType, WriteHandler<DomainEventType>[]>;
const writeHandlersByDeps = new WeakMap<Deps, WriteHandlers>();

/**
 * Runs `handler` inside every `transact` of these deps (and of their contexts) that records an
 * event of `type`. Unlike the bus's subscribers, it sees only events recorded in a transaction of
 * this process, never one published directly or by another instance.
 */
export function subscribeInTransaction<T extends DomainEventType>(deps: Deps, type: T, handler: WriteHandler<T>): void {
  const base = baseOf(deps);
  let handlers = writeHandlersByDeps.get(base);
  if (!handlers) {
    handlers = new Map();
    writeHandlersByDeps.set(base, handlers);
  }
  const list = handlers.get(type) ?? [];
  list.push(handler as unknown as WriteHandler<DomainEventType>);
  handlers.set(type, list);
}

/** The deps a context was made from: the first object up its prototype chain with no actor (0200). */
function baseOf(deps: Deps): Deps {
  let d = deps;
  while ("actor" in d) d = Object.getPrototypeOf(d) as Deps;
  return d;
}
