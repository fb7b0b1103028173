import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from "fastify";
import { InsufficientPermissions } from "../core/access.js";
import { AppError, ERROR_STATUS, type ErrorCode, listOf, renderReferences, sentence } from "../core/errors.js";
import { newId } from "../core/ids.js";
import { withPrefix } from "../core/scopes.js";
import { allowedMethods } from "./route-table.js";
import { type SchemaError, schemaDetails, type WireDetail } from "./validation-messages.js";
import { named, type RouteNames, referenceOf, subjectOf, type WireFields, wirePathOf } from "./wire-fields.js";

interface Mapped {
  code: ErrorCode;
  message: string;
  details?: WireDetail[] | undefined;
}

/** What a store failure says about the store (src/infra/db/failures.ts), handed in by the app. */
export type StoreFailureOf = (error: unknown) => "unavailable" | "full" | undefined;

/** Seconds a client is asked to wait after a 503 for an unreachable database (decision 0107). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

const STORE_FAILURES: Record<"unavailable" | "full", Mapped> = {
  unavailable: {
    code: "ServiceUnavailable",
    message:
      "The database is unreachable or restarting; retry shortly (an order retried with the same x-request-id is made at most once)",
  },
  full: {
    code: "InsufficientStorage",
    message: "The database has no space left for this change, which was not made; reads keep working",
  },
};

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route's domain names whose wire path differs by more than casing (src/http/wire-fields.ts). */
    fields?: WireFields;
  }
}

/** `NotFound` → `NOT_FOUND`, as the service envelope spells codes (upstream's own for validation). */
const serviceCode = (code: ErrorCode) =>
  code === "ValidationFailed" ? "VALIDATION_ERROR" : code.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();

/** The service envelope of an error (decision 0121): what upstream's price-alerts clients read. */
export function serviceError(mapped: Mapped, at: Date) {
  const first = mapped.details?.[0];
  return {
    success: false,
    timestamp: at.toISOString(),
    error: {
      code: serviceCode(mapped.code),
      message: mapped.message,
      ...(mapped.details ? { details: mapped.details.map((d) => d.message).join(" ") } : {}),
      ...(first ? { field: first.field.slice(first.field.lastIndexOf("/") + 1) } : {}),
    },
  };
}

const FRAMEWORK_ERRORS: Record<string, Mapped> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: "UnsupportedMediaType", message: "Send the body as application/json" },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: "BadRequest", message: "Content-Length does not match the body" },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: "BadRequest", message: "The JSON body is empty" },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: "BadRequest", message: "The body is not valid JSON" },
};

function validationDetails(error: FastifyError): WireDetail[] {
  return schemaDetails((error.validation ?? []) as SchemaError[], error.validationContext ?? "body");
}

/** A 422's errorMessage: its one detail, or one sentence listing the fields. */
function validationMessage(details: readonly WireDetail[]): string {
  if (details.length === 1) return details[0]!.message;
  const fields = [...new Set(details.map((d) => named(d.field)))];
  return sentence(`The request has ${details.length} problems`, `in ${listOf(fields, "and")}; see details`);
}

/** A 403 names every scope the operation accepts, as a client would ask for it (prefixed). */
function insufficientPermissions(error: InsufficientPermissions, scopePrefix: string): Mapped {
  const scopes = error.accepted.map((s) => withPrefix(s, scopePrefix));
  return {
    code: error.code,
    message: `This operation accepts any one of these scopes, and the credential holds none: ${scopes.join(", ")}`,
    details: scopes.map((scope) => ({ field: "scopes", message: scope })),
  };
}

/**
 * Maps anything thrown to the public error model; unknown errors never leak their text. A use
 * case's problems name domain fields: `route` (its schemas and declared names) turns them into
 * wire paths and sentences.
 */
export function mapError(
  error: unknown,
  scopePrefix: string,
  route: RouteNames = {},
  storeFailureOf?: StoreFailureOf,
): Mapped {
  const failure = storeFailureOf?.(error);
  if (failure) return STORE_FAILURES[failure];
  if (error instanceof InsufficientPermissions) return insufficientPermissions(error, scopePrefix);
  if (error instanceof AppError) {
    if (!error.problems || error.problems.length === 0) return { code: error.code, message: error.message };
    const wire = (field: string) => wirePathOf(field, route);
    const details = error.problems.map((p) => {
      const field = wire(p.field);
      return {
        field,
        message: sentence(
          subjectOf(field),
          renderReferences(p.problem, (f) => referenceOf(wire(f))),
        ),
      };
    });
    const message = error.code === "ValidationFailed" ? validationMessage(details) : error.message;
    return { code: error.code, message, details };
  }
  const fe = error as Partial<FastifyError>;
  if (fe.validation) {
    const details = validationDetails(fe as FastifyError);
    return { code: "ValidationFailed", message: validationMessage(details), details };
  }
  if (fe.code && FRAMEWORK_ERRORS[fe.code]) return FRAMEWORK_ERRORS[fe.code]!;
  if (fe.code === "FST_ERR_CTP_BODY_TOO_LARGE" || fe.statusCode === 413) {
    return { code: "PayloadTooLarge", message: "The body is larger than the configured limit" };
  }
  if (error instanceof SyntaxError || fe.statusCode === 400) {
    return { code: "BadRequest", message: "The request could not be read" };
  }
  if (fe.statusCode === 404) return { code: "NotFound", message: "Not found" };
  if (fe.statusCode === 415) return FRAMEWORK_ERRORS.FST_ERR_CTP_INVALID_MEDIA_TYPE!;
  return { code: "GeneralError", message: "An unexpected error occurred" };
}

export function registerErrorHandling(
  app: FastifyInstance,
  statusOf: (code: ErrorCode) => number,
  scopePrefix: string,
  storeFailureOf?: StoreFailureOf,
  /** Runs after each answer of the not-found handler (the metrics' recorder of unmatched requests). */
  notFoundOnResponse?: onResponseHookHandler,
  /** The clock of the service envelope's `timestamp` (deps.clock). */
  now: () => Date = () => new Date(),
): void {
  app.setErrorHandler((error, request, reply) => {
    const route = error instanceof AppError && error.problems ? request.routeOptions : undefined;
    const mapped = mapError(
      error,
      scopePrefix,
      route ? { schema: route.schema, fields: route.config.fields } : {},
      storeFailureOf,
    );
    const status = statusOf(mapped.code);
    if (mapped.code === "ServiceUnavailable" || mapped.code === "InsufficientStorage") {
      // The operator's line names the cause; the client's body does not.
      request.log.warn({ err: error, errorCode: mapped.code }, "request failed: the database is unavailable or full");
    } else if (status >= 500) request.log.error({ err: error }, "request failed");
    else request.log.info({ errorCode: mapped.code }, mapped.message);
    // A Retry-After set before (the sandbox's injected 503, decision 0150) is kept.
    if (mapped.code === "ServiceUnavailable" && !reply.hasHeader("retry-after")) {
      void reply.header("retry-after", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    }
    void reply.status(status).send({
      errorCode: mapped.code,
      errorMessage: mapped.message,
      requestId: request.id,
      ...(mapped.details ? { details: mapped.details } : {}),
      ...(request.routeOptions.config?.access?.serviceErrors ? serviceError(mapped, now()) : {}),
    });
  });
  // A path the app has, asked with a method it has not, is a 405 naming the methods it has.
  // Fastify builds the not-found route's hooks from these options as from any route's (its types
  // name only preValidation and preHandler).
  const notFoundOptions = (notFoundOnResponse ? { onResponse: [notFoundOnResponse] } : {}) as Parameters<
    FastifyInstance["setNotFoundHandler"]
  >[0];
  app.setNotFoundHandler(notFoundOptions, (request, reply) => {
    const path = request.url.split("?")[0];
    const allowed = allowedMethods(app, request.url);
    if (allowed.length > 0 && !allowed.includes(request.method as (typeof allowed)[number])) {
      void reply
        .status(statusOf("MethodNotAllowed"))
        .header("Allow", allowed.join(", "))
        .send({
          errorCode: "MethodNotAllowed",
          errorMessage: `${path} has no ${request.method} operation; it answers ${allowed.join(", ")}`,
          requestId: request.id,
        });
      return;
    }
    void reply.status(404).send({
      errorCode: "NotFound",
      errorMessage: `No operation ${request.method} ${path}`,
      requestId: request.id,
    });
  });
}

/**
 * The longest path parameter the router hands to a route. Shorter ones are judged by the route's
 * own schema (422 naming the parameter); longer ones get 414 (decision 0101).
 */
export const MAX_PARAM_LENGTH = 1024;

const ROUTER_ERRORS: Record<string, Mapped> = {
  FST_ERR_BAD_URL: { code: "BadRequest", message: "The URL path has an invalid percent-escape" },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: "UriTooLong",
    message: `A path segment is longer than ${MAX_PARAM_LENGTH} characters`,
  },
};

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route or hook runs (a bad
 * percent-escape, an overlong path segment) gets the one error body and the x-request-id header.
 * The URL is never echoed.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const mapped = (error.code && ROUTER_ERRORS[error.code]) || {
    code: "GeneralError" as const,
    message: "An unexpected error occurred",
  };
  const status = ERROR_STATUS[mapped.code];
  if (status >= 500) request.log.error({ err: error }, "request failed");
  else request.log.info({ errorCode: mapped.code }, mapped.message);
  void reply
    .status(status)
    .header("x-request-id", request.id)
    .header("content-type", "application/json; charset=utf-8")
    .send(JSON.stringify({ errorCode: mapped.code, errorMessage: mapped.message, requestId: request.id }));
}

const CLIENT_ERRORS: Record<string, { status: number; code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: "HeadersTooLarge",
    message: "The request line and headers are larger than the server accepts",
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: "RequestTimeout", message: "The request took too long" },
};

/**
 * Requests too malformed to reach Fastify (bad HTTP, huge headers) still get the one error body,
 * with a new request id in both the body and the x-request-id header (the request's own headers
 * could not be read).
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const { status, code, message } = (error.code && CLIENT_ERRORS[error.code]) || {
    status: 400,
    code: "BadRequest",
    message: "The request is not valid HTTP",
  };
  const requestId = newId();
  const body = JSON.stringify({ errorCode: code, errorMessage: message, requestId });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
