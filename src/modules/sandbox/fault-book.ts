import { randomUUID } from "node:crypto";

/** What an injected fault answers instead of the operation (or before it, for a delay). */
export type FaultKind = "429" | "500" | "503" | "delay";

export interface FaultRule {
  id: string;
  /** The key pair id or OAuth client id the fault applies to (the actor's `credentialId`), or null. */
  credentialId: string | null;
  /** Instead: every credential of this user (the actor's `userId`), or null. */
  userId: string | null;
  /** An operationId (`getPriceAlerts`), a route (`GET /api/v1/price-alerts`) or `*` (every operation). */
  operation: string;
  kind: FaultKind;
  /** Answers left to inject (count mode); null in share mode. */
  remaining: number | null;
  /** The share of matching calls that get the fault, 0 < share ≤ 1 (share mode); null in count mode. */
  share: number | null;
  /** Retry-After of a 429 or 503, in seconds. */
  retryAfterSeconds: number;
  /** Milliseconds a `delay` fault holds the call before it runs normally. */
  delayMs: number;
  /** Matching calls seen so far (injected or not). */
  seen: number;
  /** Answers injected so far. */
  injected: number;
  createdAt: string;
}

export type NewFault = Pick<
  FaultRule,
  "credentialId" | "userId" | "operation" | "kind" | "retryAfterSeconds" | "delayMs"
> &
  ({ count: number; share?: undefined } | { share: number; count?: undefined });

/** One call, as the fault hook sees it. */
export interface CallSite {
  credentialId: string;
  userId: string;
  operationId: string | undefined;
  /** `METHOD /path` as the route is declared. */
  route: string;
}

/**
 * The faults the operator armed (docs/decisions/0150), in this process's memory. A share is
 * applied deterministically: with share p the n-th matching call is faulted when ⌊n·p⌋ grows,
 * so 0.5 faults every second call, 0.25 every fourth, and a test sees the same calls faulted
 * every run.
 */
export class FaultBook {
  private readonly rules = new Map<string, FaultRule>();

  add(fault: NewFault, createdAt: string): FaultRule {
    const rule: FaultRule = {
      id: randomUUID(),
      credentialId: fault.credentialId,
      userId: fault.userId,
      operation: fault.operation,
      kind: fault.kind,
      remaining: fault.count ?? null,
      share: fault.share ?? null,
      retryAfterSeconds: fault.retryAfterSeconds,
      delayMs: fault.delayMs,
      seen: 0,
      injected: 0,
      createdAt,
    };
    this.rules.set(rule.id, rule);
    return rule;
  }

  list(): FaultRule[] {
    return [...this.rules.values()].map((r) => ({ ...r }));
  }

  remove(id: string): boolean {
    return this.rules.delete(id);
  }

  clear(): number {
    const n = this.rules.size;
    this.rules.clear();
    return n;
  }

  get size(): number {
    return this.rules.size;
  }

  /** The fault this call gets, if any (the oldest matching rule that fires); spends it. */
  take(call: CallSite): FaultRule | undefined {
    for (const rule of this.rules.values()) {
      if (rule.credentialId !== null && rule.credentialId !== call.credentialId) continue;
      if (rule.userId !== null && rule.userId !== call.userId) continue;
      if (rule.operation !== "*" && rule.operation !== call.operationId && rule.operation !== call.route) continue;
      rule.seen += 1;
      let fire: boolean;
      if (rule.share !== null) fire = Math.floor(rule.seen * rule.share) > Math.floor((rule.seen - 1) * rule.share);
      else fire = (rule.remaining ?? 0) > 0;
      if (!fire) continue;
      rule.injected += 1;
      if (rule.remaining !== null) {
        rule.remaining -= 1;
        if (rule.remaining === 0) this.rules.delete(rule.id);
      }
      return { ...rule };
    }
    return undefined;
  }
}
