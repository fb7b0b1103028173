import { requireSystem } from "../../core/access.js";
import type { AuditOutcome } from "../../core/audit.js";
import { isoNow } from "../../core/clock.js";
import type { Ctx } from "../context.js";
import { type AuditFilter, auditRepository } from "./audit.repository.js";

export interface AuditRecord {
  id: number;
  at: string;
  action: string;
  outcome: AuditOutcome;
  actor: string | null;
  userId: string | null;
  address: string | null;
  details: Record<string, unknown>;
}

/** The newest audit events first (the operator CLI's `audit list`). */
export async function listAudit(ctx: Ctx, filter: AuditFilter): Promise<AuditRecord[]> {
  requireSystem(ctx.actor);
  const rows = await auditRepository(ctx.db.kysely).list(filter);
  return rows.map((row) => ({
    id: Number(row.id),
    at: row.at,
    action: row.action,
    outcome: row.outcome as AuditOutcome,
    actor: row.actor,
    userId: row.userId,
    address: row.address,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }));
}

/** Deletes events older than AUDIT_RETENTION_DAYS (the retention pass). */
export async function purgeAudit(ctx: Ctx): Promise<number> {
  requireSystem(ctx.actor);
  const cutoff = new Date(Date.parse(isoNow(ctx.clock)) - ctx.config.audit.retentionDays * 86_400_000);
  return auditRepository(ctx.db.kysely).deleteBefore(cutoff.toISOString());
}
