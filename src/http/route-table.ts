import type { FastifyInstance, HTTPMethods, RouteOptions } from "fastify";
import type { Access } from "./access.js";

/** One registered route: one method of one path, as the router knows it. */
export interface RouteEntry {
  readonly method: string;
  /** The path as declared (`/api/v1/posts/:postId`), not a request's URL. */
  readonly url: string;
  /** The route's guard, or undefined for a route without one (health, OAuth pages, docs). */
  readonly access: Access | undefined;
  /** Its response schemas by status, compiled on first use (http/serializers.ts): tests compile them all. */
  readonly responses: Readonly<Record<string, unknown>> | undefined;
  /** Its request schemas by part (body, querystring, params, headers), compiled on first use (http/validators.ts). */
  readonly requests: Readonly<Partial<Record<RequestPart, unknown>>>;
}

export const REQUEST_PARTS = ["body", "querystring", "params", "headers"] as const;
export type RequestPart = (typeof REQUEST_PARTS)[number];

declare module "fastify" {
  interface FastifyInstance {
    /** Every route of the app, in registration order (HEAD twins of GET routes included). */
    readonly routeTable: readonly RouteEntry[];
  }
}

/** The methods an app has routes for, kept up to date by registerRouteTable. */
const routedMethods = new WeakMap<FastifyInstance, Set<HTTPMethods>>();

/**
 * Records every route as it is declared. Registered first, so that it sees every route, plugins'
 * included (hooks are inherited). Read by the 405 answer and by the test that holds every route to
 * an entry of the shared security suite.
 */
export function registerRouteTable(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  const methods = new Set<HTTPMethods>();
  app.decorate("routeTable", table);
  routedMethods.set(app, methods);
  app.addHook("onRoute", (route: RouteOptions) => {
    const access = (route.config as { access?: Access } | undefined)?.access;
    const schema = route.schema as
      | (Partial<Record<RequestPart, unknown>> & { response?: Record<string, unknown> })
      | undefined;
    const responses = schema?.response;
    const requests: Partial<Record<RequestPart, unknown>> = {};
    for (const part of REQUEST_PARTS) if (schema?.[part] !== undefined) requests[part] = schema[part];
    for (const method of [route.method].flat()) {
      table.push({ method, url: route.url, access, responses, requests });
      // OPTIONS is the CORS preflight, answered on every path: never a method a path "has".
      if (method !== "OPTIONS") methods.add(method);
    }
  });
}

/**
 * The methods `url` answers to, for the `Allow` header of a 405: each method the app has routes
 * for is looked up in the router itself, so parametric and wildcard paths match exactly as they
 * would for a request. Only requests no route matched pay for this: a handful of router lookups.
 */
export function allowedMethods(app: FastifyInstance, url: string): HTTPMethods[] {
  const methods = routedMethods.get(app) ?? [];
  return [...methods].filter((method) => app.findRoute({ method, url }) !== null).sort(byConvention);
}

const CONVENTIONAL_ORDER: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const rank = (method: string) => {
  const i = CONVENTIONAL_ORDER.indexOf(method);
  return i === -1 ? CONVENTIONAL_ORDER.length : i;
};
const byConvention = (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b);
