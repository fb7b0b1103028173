import { AppError, invalid } from "../../core/errors.js";
import type { Ctx } from "../context.js";
import { resolveUser } from "../identity/user-ref.js";
import type { FaultKind, FaultRule } from "./fault-book.js";
import { requireOperator, sandboxOf } from "./sandbox-access.js";

/** The fault controls (decision 0150): armed per credential or per user, by operation. */

export interface ArmFaultInput {
  credentialId?: string | undefined;
  user?: string | undefined;
  operation: string;
  kind: FaultKind;
  count?: number | undefined;
  share?: number | undefined;
  retryAfterSeconds?: number | undefined;
  delayMs?: number | undefined;
}

export async function armFault(ctx: Ctx, input: ArmFaultInput): Promise<FaultRule> {
  requireOperator(ctx.actor);
  const faults = sandboxOf(ctx).faults;
  if ((input.credentialId === undefined) === (input.user === undefined)) {
    throw invalid("credentialId", "give exactly one of {credentialId} or {user}");
  }
  if (input.count !== undefined && input.share !== undefined) {
    throw invalid("count", "give at most one of {count} or {share}");
  }
  const userId = input.user === undefined ? null : (await resolveUser(ctx.db.kysely, input.user)).id;
  const common = {
    credentialId: input.credentialId ?? null,
    userId,
    operation: input.operation.trim(),
    kind: input.kind,
    retryAfterSeconds: input.retryAfterSeconds ?? 2,
    delayMs: input.delayMs ?? 1000,
  };
  const at = ctx.clock.now().toISOString();
  return input.share !== undefined
    ? faults.add({ ...common, share: input.share }, at)
    : faults.add({ ...common, count: input.count ?? 1 }, at);
}

export function listFaults(ctx: Ctx): FaultRule[] {
  requireOperator(ctx.actor);
  return sandboxOf(ctx).faults.list();
}

export function removeFault(ctx: Ctx, id: string): number {
  requireOperator(ctx.actor);
  if (!sandboxOf(ctx).faults.remove(id)) throw new AppError("NotFound", `No armed fault "${id}"`);
  return 1;
}

export function clearFaults(ctx: Ctx): number {
  requireOperator(ctx.actor);
  return sandboxOf(ctx).faults.clear();
}
