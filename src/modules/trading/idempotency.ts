import { createHash } from "node:crypto";
import { isoNow } from "../../core/clock.js";
import { AppError } from "../../core/errors.js";
import type { Deps } from "../context.js";
import type { TradingRepository } from "./trading.repository.js";

/** A canonical JSON text (keys sorted), so that key order and casing never change the hash. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

export const requestHash = (operation: string, input: unknown) =>
  createHash("sha256")
    .update(`${operation}\n${canonical(input)}`)
    .digest("hex");

/**
 * Runs `work` at most once per (caller, x-request-id), inside the caller's transaction: the key
 * is claimed first, the response stored with the work, and both commit together. A retry with
 * the same body gets the stored response; the same id with another body or operation gets 409.
 * A request that failed (rolled back) stored nothing, so its retry runs again.
 */
export async function once<T>(
  deps: Pick<Deps, "clock">,
  repo: TradingRepository,
  key: { userId: string; requestId: string; operation: string; input: unknown },
  work: () => Promise<T>,
): Promise<{ result: T; replayed: boolean }> {
  const bodyHash = requestHash(key.operation, key.input);
  const claimed = await repo.claimRequest({
    userId: key.userId,
    requestId: key.requestId,
    operation: key.operation,
    bodyHash,
    response: "",
    createdAt: isoNow(deps.clock),
  });
  if (!claimed) {
    const stored = await repo.findRequest(key.userId, key.requestId);
    if (!stored || stored.bodyHash !== bodyHash || stored.response === "") {
      throw new AppError(
        "Conflict",
        "This x-request-id was already used for a different request; send a new id for a new order",
        [{ field: "header/x-request-id", message: "already used with a different body or operation" }],
      );
    }
    return { result: JSON.parse(stored.response) as T, replayed: true };
  }
  const result = await work();
  await repo.storeResponse(key.userId, key.requestId, JSON.stringify(result));
  return { result, replayed: false };
}
