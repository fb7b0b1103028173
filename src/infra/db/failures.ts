/**
 * What a driver error says about the store itself, as opposed to the query (docs/decisions/0107):
 * - `unavailable`: the database cannot be reached or is restarting (PostgreSQL's connection
 *   refused, reset or terminated, a backend killed by an administrator or a restart, the pool's
 *   connect timeout; SQLite's file locked past busy_timeout or an I/O error). Nothing was
 *   committed by a statement that failed this way, except possibly a COMMIT whose answer was
 *   lost: clients retry with the same x-request-id, which is idempotent for orders.
 * - `full`: SQLite could not grow the file (disk full, or `max_page_count` reached). The write was
 *   rolled back; reads keep working.
 * Anything else is a bug or a broken rule, and stays what it was.
 */
export type StoreFailure = "unavailable" | "full";

/** Node's socket errors that mean the server is not there (any more). */
const NETWORK = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNABORTED",
]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01 admin_shutdown (pg_terminate_backend,
 * a fast shutdown), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down),
 * 53300 too_many_connections.
 */
const PG_UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "53300"]);

/** node-postgres's own words when a connection ends under it or cannot be had in time. */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Connection terminated due to connection timeout/,
  /^Query read timeout/,
];

function failureOfOne(error: unknown): StoreFailure | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string") {
    // better-sqlite3: SQLITE_FULL, SQLITE_BUSY, SQLITE_IOERR_*, …
    if (code === "SQLITE_FULL") return "full";
    if (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_") || code.startsWith("SQLITE_IOERR")) {
      return "unavailable";
    }
    if (code === "SQLITE_CANTOPEN" || code === "SQLITE_PROTOCOL") return "unavailable";
    if (NETWORK.has(code) || PG_UNAVAILABLE.has(code) || /^08/.test(code)) return "unavailable";
  }
  if (typeof message === "string" && PG_MESSAGES.some((m) => m.test(message))) return "unavailable";
  return undefined;
}

/** The store failure behind `error` (its `cause` chain and an AggregateError's errors included). */
export function storeFailureOf(error: unknown, depth = 0): StoreFailure | undefined {
  if (depth > 5 || typeof error !== "object" || error === null) return undefined;
  const own = failureOfOne(error);
  if (own) return own;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (Array.isArray(errors)) {
    for (const e of errors) {
      const found = storeFailureOf(e, depth + 1);
      if (found) return found;
    }
  }
  return cause === undefined ? undefined : storeFailureOf(cause, depth + 1);
}
