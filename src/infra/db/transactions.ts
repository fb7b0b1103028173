import { type Kysely, PostgresAdapter, type SelectQueryBuilder, type Transaction } from "kysely";
import type { Executor } from "./executor.js";
import type { Database } from "./schema.js";

/**
 * PostgreSQL's answers that mean "this transaction lost a race; run it again": a serialization
 * failure (40001) and a deadlock (40P01). Nothing was committed, so a retry is safe (decision 0102).
 */
const RETRYABLE = new Set(["40001", "40P01"]);
/** Attempts in all; the last failure is thrown (a 500, logged) when every one loses. */
export const TRANSACTION_ATTEMPTS = 5;

export const isRetryable = (error: unknown): boolean =>
  typeof (error as { code?: unknown } | null)?.code === "string" && RETRYABLE.has((error as { code: string }).code);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` in one transaction, again (from scratch, after a short random pause) when
 * PostgreSQL aborts it for a deadlock or a serialization failure, at most TRANSACTION_ATTEMPTS
 * times. `work` must be safe to run again: everything it does goes through `trx`.
 */
export async function runTransaction<T>(
  kysely: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await kysely.transaction().execute(work);
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryable(error)) throw error;
      await pause(Math.random() * 10 * attempt);
    }
  }
}

/**
 * Locks the rows `query` selects, in its order, until the transaction ends, so that transactions
 * writing several of the same rows take their locks in one order and cannot deadlock. PostgreSQL:
 * `select … for update`; SQLite needs nothing (a write transaction excludes every other writer).
 */
export async function lockRows<DB, TB extends keyof DB, O>(
  db: Executor,
  query: SelectQueryBuilder<DB, TB, O>,
): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await query.forUpdate().execute();
}
