import { setTimeout as sleep } from "node:timers/promises";
import { AppError } from "../../core/errors.js";
import type { App } from "../../http/app-type.js";
import type { Deps } from "../context.js";
import type { FaultRule } from "./fault-book.js";

/** The answer header that marks an injected fault: `<kind>; id=<fault id>`. */
export const FAULT_HEADER = "x-sandbox-fault";

/**
 * The fault injector (decision 0150): before validation (the caller is known and counted by the
 * limiter), a call whose credential and operation match an armed fault gets it instead of its
 * answer (429 or 503 with Retry-After, 500), or waits before running (delay). Sandbox paths are
 * never faulted, so the operator can always disarm.
 */
export function registerFaultInjection(app: App, deps: Deps): void {
  const sandbox = deps.sandbox;
  if (!sandbox) return;
  app.addHook("preValidation", async (request, reply) => {
    if (sandbox.faults.size === 0) return;
    const actor = request.actor;
    if (actor?.kind !== "user") return;
    const pattern = request.routeOptions.url ?? "";
    if (pattern.startsWith("/sandbox/")) return;
    const fault = sandbox.faults.take({
      credentialId: actor.credentialId,
      userId: actor.userId,
      operationId: (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId,
      route: `${request.method} ${pattern}`,
    });
    if (!fault) return;
    reply.header(FAULT_HEADER, `${fault.kind}; id=${fault.id}`);
    const answer = await faultAnswer(fault, reply);
    if (answer) throw answer;
  });
}

async function faultAnswer(
  fault: FaultRule,
  reply: { header(name: string, value: string): unknown },
): Promise<AppError | undefined> {
  const said = `Injected by the sandbox (fault ${fault.id})`;
  switch (fault.kind) {
    case "429":
      reply.header("Retry-After", String(fault.retryAfterSeconds));
      return new AppError("TooManyRequests", `${said}: too many requests; retry after ${fault.retryAfterSeconds} s`);
    case "503":
      reply.header("Retry-After", String(fault.retryAfterSeconds));
      return new AppError(
        "ServiceUnavailable",
        `${said}: the service is unavailable; retry after ${fault.retryAfterSeconds} s`,
      );
    case "500":
      return new AppError("GeneralError", `${said}: an unexpected error occurred`);
    case "delay":
      await sleep(fault.delayMs);
      return undefined;
  }
}
