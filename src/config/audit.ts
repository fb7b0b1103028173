/** The audit trail of security events (docs/decisions/0103): AUDIT_RETENTION_DAYS. */

import type { Pick } from "./shared.js";

export interface AuditSettings {
  /** Events older than this many days are purged by the retention pass. */
  retentionDays: number;
}

export function parseAuditSettings(pick: Pick, problems: string[]): AuditSettings {
  const text = pick(undefined, "AUDIT_RETENTION_DAYS") ?? "90";
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 3650) {
    problems.push(`AUDIT_RETENTION_DAYS must be a whole number of days from 1 to 3650 (got "${text}")`);
  }
  return { retentionDays: Number(text) };
}
