import { type TSchema, Type } from "typebox";
import { type AcceptedScopes, isKnownScope, namedScopes, withPrefix } from "../core/scopes.js";
import { errorResponse, withRateLimitHeaders, withServiceEnvelope } from "./schemas.js";
import type { WireFields } from "./wire-fields.js";

/**
 * Quota groups (the spec's Limits table plus upstream's pools). `default` is the shared pool of
 * every operation without a dedicated group.
 */
export type RateLimitGroup = "default" | "feed" | "watchlist" | "market-data" | "notifications" | "writes";

/** How a route is guarded. Declared once per route; read by the auth hook, the limiter and OpenAPI. */
export interface Access {
  /**
   * The quota the route spends; `default` when absent. The method adds the rest (src/http/rate-limit.ts):
   * writes also spend the `writes` pool, `notifications` is the default pool plus 1 per second.
   * `feed` and `watchlist` are GET groups: write routes leave this unset.
   */
  rateLimit?: RateLimitGroup;
  /** `required` (default) or `optional` (anonymous callers get the public view). */
  auth?: "required" | "optional";
  /**
   * Any-of: at least one scope, or ANY_AUTHENTICATED for an operation any authenticated user may
   * call. An empty list is a type error and refused when the route is registered (deny by default).
   */
  scopes: AcceptedScopes;
  /** The spec makes x-request-id a required uuid on some operations (422 otherwise). */
  requestIdRequired?: boolean;
  /**
   * Upstream's services that wrap their errors (price alerts: `{ success: false, error: { code,
   * message, details, field } }`): the route's errors carry that envelope beside the one body.
   */
  serviceErrors?: boolean;
}

declare module "fastify" {
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** Alternatives, any one of which grants access: one requirement per accepted scope. */
export function securityFor(access: Access, prefix: string): Record<string, string[]>[] {
  const named = namedScopes(access.scopes);
  const scopes = named.map((s) => withPrefix(s, prefix));
  // No application can be granted the operator's scope: only a key pair reaches such a route.
  const grantable = named.filter(isKnownScope).map((s) => withPrefix(s, prefix));
  const oauth =
    scopes.length === 0 ? [{ oauth2: [] }] : grantable.length === 0 ? [] : grantable.map((s) => ({ oauth2: [s] }));
  const pair = scopes.length === 0 ? [{ apiKey: [], userKey: [] }] : scopes.map((s) => ({ apiKey: [s], userKey: [s] }));
  return [...oauth, ...pair, ...(access.auth === "optional" ? [{}] : [])];
}

/**
 * A query parameter with a default is optional to the caller (validation fills the default in),
 * so the document must not mark it required. Validation is unchanged.
 */
function withDefaultsOptional<T extends TSchema>(query: T): T {
  const q = query as TSchema & { properties?: Record<string, { default?: unknown }>; required?: string[] };
  if (!q.properties || !q.required) return query;
  const required = q.required.filter((name) => q.properties?.[name]?.default === undefined);
  return { ...query, required } as T;
}

interface RouteSchema {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  response: Record<number, TSchema>;
  summary?: string;
  description?: string;
  operationId?: string;
  tags?: string[];
  /** Request content types, for the OpenAPI document (a multipart upload). */
  consumes?: string[];
  deprecated?: boolean;
}

/**
 * Builds the `schema` and `config` of an API route from its access rule: security
 * alternatives, the x-request-id header, every error status it can return, and the
 * RateLimit headers, so that no route can forget one. `fields` names the wire path of each domain
 * field the route's use case may report that the schemas do not name the same (src/http/wire-fields.ts).
 */
export function api<S extends RouteSchema>(access: Access, schema: S, prefix: string, fields?: WireFields) {
  const headers = Type.Object({
    "x-request-id": access.requestIdRequired
      ? Type.String({ format: "uuid", description: "A unique request identifier (uuid), required" })
      : Type.Optional(Type.String({ description: "A unique request identifier; made by the server when absent" })),
  });
  const successes = Object.fromEntries(
    Object.entries(schema.response).map(([status, s]) => [status, withRateLimitHeaders(s)]),
  );
  const errors: Record<number, TSchema> = {
    // Refused before the limiter runs (there is no known caller to count): no RateLimit headers.
    401: errorResponse(
      401,
      "Missing, unknown or conflicting credentials",
      { "WWW-Authenticate": { description: "Present for bearer token problems", schema: { type: "string" } } },
      false,
    ),
    403: errorResponse(
      403,
      "The credential holds none of the scopes this operation accepts; `details` names each accepted scope (`field`: `scopes`)",
    ),
    422: errorResponse(422, "Validation failed; `details` names each offending field"),
    429: errorResponse(429, "Too many requests", {
      "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } },
    }),
    500: errorResponse(500, "Unexpected server error; no internals are disclosed"),
    503: errorResponse(503, "The database is unreachable or restarting; retry after the given seconds", {
      "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } },
    }),
    507: errorResponse(507, "The database has no space left for this change; reads keep working"),
  };
  if (schema.body) {
    errors[400] = errorResponse(400, "Malformed JSON body");
    errors[413] = errorResponse(413, "Body larger than the configured limit");
    errors[415] = errorResponse(415, "Content type other than application/json");
  }
  if (access.serviceErrors) {
    for (const status of Object.keys(errors)) errors[Number(status)] = withServiceEnvelope(errors[Number(status)]!);
  }
  return {
    config: { access, ...(fields ? { fields } : {}) },
    schema: {
      ...schema,
      ...(schema.querystring ? { querystring: withDefaultsOptional(schema.querystring) } : {}),
      headers,
      security: securityFor(access, prefix),
      response: { ...errors, ...successes } as S["response"],
    },
  };
}
