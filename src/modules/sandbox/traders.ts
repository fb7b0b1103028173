import type { Ctx } from "../context.js";
import { runSeededStrategies } from "../people/strategies/seeded-strategies.js";
import { requireOperator, sandboxOf } from "./sandbox-access.js";

/** The seeded traders trade now, one pass of their strategy, as their timer would (decision 0174). */
export async function tradeSeededTraders(ctx: Ctx) {
  requireOperator(ctx.actor);
  sandboxOf(ctx);
  return runSeededStrategies(ctx);
}
