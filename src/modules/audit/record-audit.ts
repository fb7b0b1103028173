import type { AuditEntry } from "../../core/audit.js";
import { isoNow } from "../../core/clock.js";
import type { Executor } from "../../infra/db/executor.js";
import type { Deps } from "../context.js";
import { auditRepository } from "./audit.repository.js";

/**
 * Keeps a security event: a row of the audit trail, and the same event as a structured log line
 * (`audit: <action>`). Pass the transaction's executor when the event belongs to a write, so the
 * event is kept exactly when the write is; without one the row is written on its own.
 */
export async function recordAudit(deps: Deps, entry: AuditEntry, executor: Executor = deps.db.kysely): Promise<void> {
  const at = isoNow(deps.clock);
  await auditRepository(executor).insert(entry, at);
  // Counted once written (an event of a write that later rolls back is counted all the same).
  deps.metrics.auditEvents.labels(entry.action, entry.outcome).inc();
  deps.log.info(
    {
      audit: entry.action,
      outcome: entry.outcome,
      actor: entry.actor,
      userId: entry.userId,
      address: entry.address,
      ...entry.details,
    },
    `audit: ${entry.action} (${entry.outcome})`,
  );
}
