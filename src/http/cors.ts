import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";

const ALLOWED_HEADERS = "content-type, authorization, x-api-key, x-user-key, x-request-id";
const EXPOSED_HEADERS = [
  "x-request-id",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "RateLimit-Policy",
  "Retry-After",
  "WWW-Authenticate",
  // A 405 names the methods a path has.
  "Allow",
].join(", ");
const METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";
const PREFLIGHT_MAX_AGE = "600";

/**
 * Any browser app (or the listed origins) may call the API with its own credentials: headers,
 * never cookies. One synchronous hook with its header values computed once (docs/decisions/0081):
 * with `*` every answer says so; with a list, answers vary by Origin and name only a listed one.
 * A preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered 204 on any path,
 * with the allowed methods and headers when the origin is allowed; any other OPTIONS is a 400, as
 * @fastify/cors's strict preflight answered before.
 */
export function registerCors(app: FastifyInstance, origins: Config["corsOrigins"]): void {
  const any = origins === "*";
  const listed = new Set(any ? [] : origins);
  /** The Access-Control-Allow-Origin value for this request's Origin, or undefined. */
  const allowed = (origin: string | undefined) => (any ? "*" : origin && listed.has(origin) ? origin : undefined);

  app.addHook("onRequest", (request, reply, done) => {
    if (!any) reply.header("Vary", "Origin");
    const allow = allowed(request.headers.origin);
    if (allow) {
      reply.header("Access-Control-Allow-Origin", allow);
      reply.header("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
    done();
  });

  app.route({
    method: "OPTIONS",
    url: "*",
    schema: { hide: true },
    handler: async (request, reply) => {
      if (!request.headers.origin || !request.headers["access-control-request-method"]) {
        return reply.code(400).type("text/plain").send("Invalid Preflight Request");
      }
      if (allowed(request.headers.origin)) {
        reply.header("Access-Control-Allow-Methods", METHODS);
        reply.header("Access-Control-Allow-Headers", ALLOWED_HEADERS);
        reply.header("Access-Control-Max-Age", PREFLIGHT_MAX_AGE);
      }
      return reply.code(204).header("Content-Length", "0").send();
    },
  });
}
