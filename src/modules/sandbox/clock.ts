import { invalid } from "../../core/errors.js";
import type { Ctx } from "../context.js";
import { requireOperator, sandboxOf } from "./sandbox-access.js";

/**
 * The clock controls (decision 0148): every reader of `deps.clock` follows (token expiry,
 * idempotency and audit retention on their next pass, trade and quote dates, rate-limit windows).
 */

export function readClock(ctx: Ctx) {
  requireOperator(ctx.actor);
  return sandboxOf(ctx).clock.state;
}

/** Sets the time, frozen there or running on from there. */
export function setClock(ctx: Ctx, input: { at: string; frozen?: boolean | undefined }) {
  requireOperator(ctx.actor);
  const clock = sandboxOf(ctx).clock;
  const at = Date.parse(input.at);
  if (!Number.isFinite(at)) throw invalid("at", `must be a date-time; got ${JSON.stringify(input.at)}`);
  clock.set(at, input.frozen ?? false);
  return clock.state;
}

export function advanceClock(ctx: Ctx, seconds: number) {
  requireOperator(ctx.actor);
  const clock = sandboxOf(ctx).clock;
  clock.advance(seconds * 1000);
  return clock.state;
}

/** Back to the real time. */
export function resetClock(ctx: Ctx) {
  requireOperator(ctx.actor);
  const clock = sandboxOf(ctx).clock;
  clock.reset();
  return clock.state;
}
