import { createHash } from "node:crypto";
import { isoNow } from "../../core/clock.js";
import { AppError } from "../../core/errors.js";
import type { DomainEvent } from "../../core/events.js";
import type { Executor } from "../../infra/db/executor.js";
import { type Deps, transact } from "../context.js";
import { type IdempotencyRow, tradingRepository } from "./trading.repository.js";

/**
 * A canonical JSON text (keys sorted by UTF-16 code unit, undefined members left out), so that key
 * order and casing never change the hash. Built as one string, with no array per object: it runs
 * on every order. The text must not change, or stored request hashes stop matching
 * (test/trading/request-hash.property.test.ts holds it to the first version's).
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + canonical(value[i]);
    return `${out}]`;
  }
  if (value && typeof value === "object") {
    const object = value as Record<string, unknown>;
    let out = "{";
    for (const key of Object.keys(object).sort()) {
      const member = object[key];
      if (member === undefined) continue;
      out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${canonical(member)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value ?? null);
}

export const requestHash = (operation: string, input: unknown) =>
  createHash("sha256")
    .update(`${operation}\n${canonical(input)}`)
    .digest("hex");

/** Unwinds the transaction when the request turns out to have been done already. */
class AlreadyDone extends Error {
  constructor(readonly stored: IdempotencyRow) {
    super("already done");
  }
}

export interface IdempotencyKey {
  userId: string;
  requestId: string;
  operation: string;
  input: unknown;
}

/**
 * Runs `work` in one transaction at most once per (caller, x-request-id). The key and the
 * response are written at the end of the work's own transaction, so they commit together with
 * it or not at all. A retry with the same body gets the stored response (and its work is rolled
 * back); the same id with another body or operation gets 409. A request that failed stored
 * nothing, so its retry runs again.
 *
 * Costs one statement on the way through: the key's insert (on conflict do nothing). A
 * concurrent duplicate waits on that insert (PostgreSQL) or on the writer lock (SQLite), finds
 * the key taken, and replays the winner's response.
 */
export async function idempotently<T>(
  deps: Deps,
  key: IdempotencyKey,
  work: (trx: Executor, record: (event: DomainEvent) => void) => Promise<T>,
): Promise<T> {
  const bodyHash = requestHash(key.operation, key.input);
  try {
    return await transact(deps, async (trx, record) => {
      const repo = tradingRepository(trx);
      let result: T;
      try {
        result = await work(trx, record);
      } catch (error) {
        // The work may fail only because it was done before (the position is now closed, the
        // price moved): a used key wins over the failure.
        const stored = await repo.findRequest(key.userId, key.requestId).catch(() => undefined);
        if (stored) throw new AlreadyDone(stored);
        throw error;
      }
      const recorded = await repo.recordRequest({
        userId: key.userId,
        requestId: key.requestId,
        operation: key.operation,
        bodyHash,
        response: JSON.stringify(result),
        createdAt: isoNow(deps.clock),
      });
      if (!recorded) throw new AlreadyDone((await repo.findRequest(key.userId, key.requestId))!);
      return result;
    });
  } catch (error) {
    if (!(error instanceof AlreadyDone)) throw error;
    if (error.stored.bodyHash !== bodyHash) {
      throw new AppError(
        "Conflict",
        "This x-request-id was already used for a different request; send a new id for a new order",
        [{ field: "requestId", problem: "was already used with a different body or operation" }],
      );
    }
    return JSON.parse(error.stored.response) as T;
  }
}
