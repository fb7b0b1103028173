import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { Config, RateLimitPolicy, RateLimitPool, TrustProxy } from "../config.js";
import { AppError } from "../core/errors.js";
import type { Metrics } from "../infra/metrics.js";
import type { Consumption, LimitRequest, RateLimitStore } from "../infra/ratelimit/index.js";
import type { Access, RateLimitGroup } from "./access.js";
import { onRequestOfGuardedRoutes } from "./route-hooks.js";

/** Methods that read; every other method is a write and also spends the writes pool. */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The pools a request spends, derived from the route's declared group and the method only, so
 * a route declares nothing else (decision 0020):
 * - the group's own pool (`default` when the route declares none);
 * - `notifications`: the default pool plus the 1-per-second limit of notifications GET;
 * - every write (any method but GET/HEAD/OPTIONS) also spends the `writes` pool.
 */
export function poolsFor(group: RateLimitGroup | undefined, method: string): RateLimitPool[] {
  const declared = group ?? "default";
  const pools: RateLimitPool[] =
    declared === "notifications" || declared === "writes" ? ["default", declared] : [declared];
  if (!READ_METHODS.has(method.toUpperCase()) && !pools.includes("writes")) pools.push("writes");
  return pools;
}

/**
 * Which quota the headers describe: when refused, the exhausted one that frees up last (its
 * reset is the Retry-After); when admitted, the one with the fewest requests left (ties: the
 * later reset), i.e. the one that binds next.
 */
export function bindingIndex(limits: readonly Pick<LimitRequest, "max">[], outcome: Consumption): number {
  let best = -1;
  outcome.states.forEach((state, i) => {
    const max = limits[i]!.max;
    if (!outcome.admitted) {
      if (state.count >= max && (best < 0 || state.resetMs > outcome.states[best]!.resetMs)) best = i;
      return;
    }
    if (best < 0) {
      best = i;
      return;
    }
    const left = max - state.count;
    const bestLeft = limits[best]!.max - outcome.states[best]!.count;
    if (left < bestLeft || (left === bestLeft && state.resetMs > outcome.states[best]!.resetMs)) best = i;
  });
  return Math.max(best, 0);
}

/** Whole seconds, never 0 while a window is open. */
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The callers whose budgets are separate: user + credential (key pair or OAuth client), else the client address. */
export function callerOf(request: FastifyRequest): string {
  const actor = request.actor;
  if (actor?.kind !== "user") return `ip:${request.ip}`;
  // Authenticators hand out the same actor object while it is cached: one string for its requests.
  let caller = callers.get(actor);
  if (caller === undefined) {
    caller = `u:${actor.userId}:${actor.via}:${actor.credentialId}`;
    callers.set(actor, caller);
  }
  return caller;
}
const callers = new WeakMap<object, string>();

/** Fastify's trustProxy option; a hop count trusts that many proxies nearest the server. */
export function trustProxyOption(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === "number" ? (_address, hop) => hop < trust : trust;
}

const describePolicy = (p: RateLimitPolicy) => `${p.max} request${p.max === 1 ? "" : "s"} per ${p.windowSeconds} s`;

interface Plan {
  pools: RateLimitPool[];
  limits: LimitRequest[];
}

/**
 * The limiter: an onRequest hook registered after authentication, for every route that
 * declares `config.access`. It spends the caller's budgets (all or nothing) in `store` (made with
 * the other deps, and closed with them), sets the RateLimit headers on the reply (successes and
 * errors alike) and refuses with 429 + Retry-After, counting the refusal under the exhausted pool
 * in `metrics`. Also appends each route's policy to its OpenAPI description.
 */
export function registerRateLimit(
  app: FastifyInstance,
  config: Pick<Config, "rateLimits">,
  store: RateLimitStore,
  log: Logger,
  metrics?: Pick<Metrics, "rateLimitRejections">,
): void {
  const { enabled, pools } = config.rateLimits;
  const plans = new Map<string, Plan>();
  const planFor = (group: RateLimitGroup | undefined, method: string): Plan => {
    const write = !READ_METHODS.has(method);
    const id = `${group ?? "default"}|${write}`;
    let plan = plans.get(id);
    if (!plan) {
      const names = poolsFor(group, method);
      plan = {
        pools: names,
        limits: names.map((pool) => ({ pool, max: pools[pool].max, windowMs: pools[pool].windowSeconds * 1000 })),
      };
      plans.set(id, plan);
    }
    return plan;
  };

  const documented = new WeakSet<object>();
  app.addHook("onRoute", (route) => {
    const access = (route.config as { access?: Access } | undefined)?.access;
    if (!access || !route.schema || documented.has(route.schema)) return;
    documented.add(route.schema);
    const method = [route.method].flat()[0] ?? "GET";
    const text = enabled
      ? `Rate limit: ${planFor(access.rateLimit, method)
          .pools.map((pool) => `${pool} pool, ${describePolicy(pools[pool])}`)
          .join("; plus ")}, per caller.`
      : "Rate limits are off on this server.";
    const schema = route.schema as { description?: string };
    schema.description = schema.description ? `${schema.description}\n\n${text}` : text;
  });

  if (!enabled) return;
  log.info({ store: store.kind, pools }, `rate limits on (${store.kind} store)`);

  onRequestOfGuardedRoutes(app, (access, method) => {
    const plan = planFor(access.rateLimit, method);
    // The per-limit header values that never change, made once per route.
    const fixed = plan.limits.map((l) => ({ limit: String(l.max), policy: `${l.max};w=${l.windowMs / 1000}` }));
    // The refusal counters of the route's pools, looked up once.
    const refusals = plan.pools.map((pool) => metrics?.rateLimitRejections.labels(pool));
    /** Sets the RateLimit headers; the 429 when refused. */
    const apply = (reply: FastifyReply, outcome: Consumption): AppError | undefined => {
      const i = bindingIndex(plan.limits, outcome);
      const limit = plan.limits[i]!;
      const state = outcome.states[i]!;
      const reset = seconds(state.resetMs);
      reply.header("RateLimit-Limit", fixed[i]!.limit);
      reply.header("RateLimit-Remaining", Math.max(0, limit.max - state.count));
      reply.header("RateLimit-Reset", reset);
      reply.header("RateLimit-Policy", fixed[i]!.policy);
      if (outcome.admitted) return undefined;
      refusals[i]?.inc();
      reply.header("Retry-After", reset);
      return new AppError(
        "TooManyRequests",
        `Too many requests: the ${plan.pools[i]} pool allows ${describePolicy(pools[plan.pools[i]!])} per caller; retry after ${reset} s`,
      );
    };
    // Callback style: the memory store answers at once, without a promise per request.
    return (request, reply, done) => {
      const outcome = store.consume(callerOf(request), plan.limits);
      if (outcome instanceof Promise) outcome.then((o) => done(apply(reply, o)), done);
      else done(apply(reply, outcome));
    };
  });
}
