import type { FastifyInstance, onRequestHookHandler, preValidationHookHandler, RouteOptions } from "fastify";
import type { Access } from "./access.js";

/*
 * Per-route hooks, attached when a route is declared, so that a request runs only the hooks its
 * route needs and none of them looks the route up again (Fastify's `request.routeOptions` builds
 * a new object on every read). The order of the `onRoute` registrations is the order they run in.
 */

const asList = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/** Appends `make(access, method, url)` to the onRequest hooks of every route that declares `config.access`. */
export function onRequestOfGuardedRoutes(
  app: FastifyInstance,
  make: (access: Access, method: string, url: string) => onRequestHookHandler | undefined,
): void {
  app.addHook("onRoute", (route: RouteOptions) => {
    const access = (route.config as { access?: Access } | undefined)?.access;
    const hook = access ? make(access, [route.method].flat()[0] ?? "GET", route.url) : undefined;
    if (hook) route.onRequest = [...asList(route.onRequest), hook];
  });
}

/** Appends `make(route)`'s hook to the preValidation hooks of the routes it returns one for. */
export function preValidationOfRoutes(
  app: FastifyInstance,
  make: (route: RouteOptions) => preValidationHookHandler | undefined,
): void {
  app.addHook("onRoute", (route: RouteOptions) => {
    const hook = make(route);
    if (hook) route.preValidation = [...asList(route.preValidation), hook];
  });
}
