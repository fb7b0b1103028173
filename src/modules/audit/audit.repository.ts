import type { Selectable } from "kysely";
import type { AuditEntry } from "../../core/audit.js";
import type { Executor } from "../../infra/db/executor.js";
import type { AuditEventsTable } from "../../infra/db/schema.js";

export type AuditRow = Selectable<AuditEventsTable>;

export interface AuditFilter {
  action?: string | undefined;
  userId?: string | undefined;
  /** ISO time: events at or after it. */
  since?: string | undefined;
  limit: number;
}

export const auditRepository = (db: Executor) => ({
  async insert(entry: AuditEntry, at: string): Promise<void> {
    await db
      .insertInto("auditEvents")
      .values({
        at,
        action: entry.action,
        outcome: entry.outcome,
        actor: entry.actor ?? null,
        userId: entry.userId ?? null,
        address: entry.address ?? null,
        details: JSON.stringify(entry.details ?? {}),
      })
      .execute();
  },

  /** The newest events first. */
  async list(filter: AuditFilter): Promise<AuditRow[]> {
    let query = db.selectFrom("auditEvents").selectAll();
    if (filter.action) query = query.where("action", "=", filter.action);
    if (filter.userId) query = query.where("userId", "=", filter.userId);
    if (filter.since) query = query.where("at", ">=", filter.since);
    return query.orderBy("id", "desc").limit(filter.limit).execute();
  },

  async deleteBefore(at: string): Promise<number> {
    return Number((await db.deleteFrom("auditEvents").where("at", "<", at).executeTakeFirst()).numDeletedRows);
  },
});
