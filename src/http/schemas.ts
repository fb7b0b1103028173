import { type TSchema, Type } from "typebox";
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

/** Documents the RateLimit headers on a success response. */
export function withRateLimitHeaders<T extends TSchema>(schema: T): T {
  return { ...schema, headers: RATE_LIMIT_HEADERS } as T;
}

/** An empty success (204). */
export const NoContent = Type.Null({ description: "No content" });
