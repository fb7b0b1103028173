import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { Database } from "./schema.js";
import { splitDriverOf } from "./sqlite-driver.js";

export type TransactionWork<T> = (trx: Transaction<Database>) => Promise<T>;

/** Runs transactions; on SQLite several of them share one commit (decision 0172). */
export type TransactionRunner = <T>(work: TransactionWork<T>) => Promise<T>;

/**
 * The most transactions one commit carries. A batch runs its works one after another on the one
 * connection, so this bounds how long a write waits behind the others (a few milliseconds).
 */
export const MAX_GROUP = 256;

const SAVEPOINT = CompiledQuery.raw("savepoint grouped");
const RELEASE = CompiledQuery.raw("release savepoint grouped");
const ROLLBACK_TO = CompiledQuery.raw("rollback to savepoint grouped");

interface Waiting {
  work: TransactionWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for SQLite (decision 0172). Transactions asked for while a commit is under way, or
 * in the same turn of the event loop, are written in one SQLite transaction, each inside its own
 * savepoint, and every one is answered only once that transaction has committed: a caller never
 * hears "done" before its writes are as durable as a commit of its own would have made them.
 *
 * - A work that throws rolls back to its savepoint: its writes vanish, the others' stay, and its
 *   caller gets its error. The works run one after another, each seeing the writes of those before
 *   it, exactly as if each had committed in that order (a debit after another sees the cash left).
 * - If the transaction itself fails (the commit, or SQLite rolled the whole transaction back on
 *   an I/O error), nothing of the batch was written: every caller gets an error, none a result.
 * - A batch of one runs without savepoints: it is the plain transaction it always was.
 *
 * SQLite has one connection here (a write transaction excludes every other), so the works of a
 * batch wait for nothing they would not have waited for anyway; what they share is the commit:
 * the WAL frames of the pages they all touch are written once, not once per transaction.
 */
export function commitGroup(kysely: Kysely<Database>, maxGroup = MAX_GROUP): TransactionRunner {
  let queue: Waiting[] = [];
  let draining = false;

  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.length <= maxGroup ? queue : queue.slice(0, maxGroup);
      queue = queue.length <= maxGroup ? [] : queue.slice(maxGroup);
      await commitBatch(kysely, batch);
    }
    draining = false;
  };

  return <T>(work: TransactionWork<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (draining) return;
      draining = true;
      // After this turn's other callbacks (the requests read in the same poll) have queued theirs.
      setImmediate(() => void drain());
    });
}

async function commitBatch(kysely: Kysely<Database>, batch: Waiting[]): Promise<void> {
  if (batch.length === 1) {
    const [only] = batch as [Waiting];
    await kysely.transaction().execute(only.work).then(only.resolve, only.reject);
    return;
  }
  const outcomes: Outcome[] = [];
  // The work's error after which SQLite had ended the whole transaction, if that happened.
  let lostBy: { error: unknown } | undefined;
  try {
    await kysely.transaction().execute(async (trx) => {
      // The savepoints run at once on the transaction's connection (decision 0202), else through Kysely.
      const driver = splitDriverOf(trx.getExecutor().adapter);
      const savepoint = async (query: CompiledQuery) => {
        if (!driver?.runAtOnce(query.sql, query.parameters, true)) await trx.executeQuery(query);
      };
      for (const waiting of batch) {
        await savepoint(SAVEPOINT);
        let value: unknown;
        try {
          value = await waiting.work(trx);
        } catch (error) {
          outcomes.push({ ok: false, error });
          try {
            await savepoint(ROLLBACK_TO);
            await savepoint(RELEASE);
          } catch (rollbackError) {
            // No savepoint to return to: SQLite ended the whole transaction (an I/O error, a
            // full disk). Nothing of the batch is written; the work's error says why.
            lostBy = { error };
            throw rollbackError;
          }
          continue;
        }
        await savepoint(RELEASE);
        outcomes.push({ ok: true, value });
      }
    });
  } catch (error) {
    // Not committed: no work of the batch is durable, so none may be answered as done. Each
    // failed work keeps its own error; the others get what ended the transaction.
    const cause = lostBy ? lostBy.error : error;
    batch.forEach((waiting, i) => {
      const outcome = outcomes[i];
      waiting.reject(outcome && !outcome.ok ? outcome.error : cause);
    });
    return;
  }
  batch.forEach((waiting, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) waiting.resolve(outcome.value);
    else waiting.reject(outcome.error);
  });
}
