import { type TNumberOptions, type TSchema, Type } from "typebox";
import { ERROR_STATUS } from "../core/errors.js";

/** The one error body, on every non-2xx response. */
export const ErrorBody = Type.Object(
  {
    errorCode: Type.String({ description: "Stable machine-readable code; see docs/errors.md" }),
    errorMessage: Type.String({ description: "Human-readable explanation" }),
    requestId: Type.String({ description: "The request id, as echoed in x-request-id" }),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({
            description: "The wire path of the input: `body/…`, `querystring/…`, `params/…` or `headers/…`",
          }),
          message: Type.String({ description: "One sentence naming the field and what is wrong with it" }),
        }),
      ),
    ),
  },
  { description: "Error" },
);

export const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": { description: "Requests allowed in the window", schema: { type: "integer" } },
  "RateLimit-Remaining": { description: "Requests left in the window", schema: { type: "integer" } },
  "RateLimit-Reset": { description: "Seconds until the window resets", schema: { type: "integer" } },
  "RateLimit-Policy": { description: "`<limit>;w=<window seconds>`", schema: { type: "string" } },
} as const;

const errorCodesFor = (status: number) =>
  Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([code]) => code)
    .join(", ");

/** An error response; `rateLimited` false for answers given before the limiter runs (401). */
export function errorResponse(
  status: number,
  description: string,
  extraHeaders: Record<string, unknown> = {},
  rateLimited = true,
) {
  return Type.Object(ErrorBody.properties, {
    description: `${description} (errorCode: ${errorCodesFor(status)})`,
    headers: { ...(rateLimited ? RATE_LIMIT_HEADERS : {}), ...extraHeaders },
  } as Record<string, unknown>);
}

/** Upstream's price-alerts service envelope, carried beside the one error body (decision 0121). */
const SERVICE_ERROR = {
  success: Type.Boolean({ description: "false" }),
  timestamp: Type.String({ format: "date-time", description: "When the error was answered" }),
  error: Type.Object({
    code: Type.String({ description: "VALIDATION_ERROR, NOT_FOUND, BAD_REQUEST, …" }),
    message: Type.String(),
    details: Type.Optional(Type.String()),
    field: Type.Optional(Type.String()),
  }),
};

/** An error response that also carries the service envelope: the serializer writes only what the schema lists. */
export function withServiceEnvelope(schema: TSchema): TSchema {
  const { description, headers } = schema as { description?: string; headers?: unknown };
  return Type.Object({ ...ErrorBody.properties, ...SERVICE_ERROR }, { description, headers } as Record<
    string,
    unknown
  >);
}

/** Documents the RateLimit headers on a success response. */
export function withRateLimitHeaders<T extends TSchema>(schema: T): T {
  return { ...schema, headers: RATE_LIMIT_HEADERS } as T;
}

/** An empty success (204). */
export const NoContent = Type.Null({ description: "No content" });

/*
 * Request numbers, bounded by the column they land in. Every integer or number a request carries
 * has a finite minimum and maximum in its schema (test/fuzz/bounds.test.ts checks the document):
 * with Ajv's query coercion, `Infinity`, `1e309` and `99999999999999999999999` become numbers that
 * pass `type: integer`, and only the bounds stop them before the database (decision 0100).
 */

export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

/** An integer stored in an int32 column (PostgreSQL `integer`), by default the whole int32 range. */
export const Int32 = (options: TNumberOptions = {}) =>
  Type.Integer({ format: "int32", minimum: INT32_MIN, maximum: INT32_MAX, ...options });

/** An id of an int32 identity column: 1 to 2^31-1. */
export const Int32Id = (options: TNumberOptions = {}) => Int32({ minimum: 1, ...options });

/**
 * A finite double bounded by ±`magnitude`. The sign and the rest of the rules stay with the use
 * case (its messages say "positive", "below the bid", ...); the bound keeps the value finite and
 * its products (cents, notional) within a 64-bit integer.
 */
export const BoundedNumber = (magnitude: number, options: TNumberOptions = {}) =>
  Type.Number({ format: "double", minimum: -magnitude, maximum: magnitude, ...options });
