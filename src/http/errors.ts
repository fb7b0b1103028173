import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance } from "fastify";
import { InsufficientPermissions } from "../core/access.js";
import { AppError, type ErrorCode, type ErrorDetail } from "../core/errors.js";
import { newId } from "../core/ids.js";
import { withPrefix } from "../core/scopes.js";
import { allowedMethods } from "./route-table.js";

interface Mapped {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[] | undefined;
}

const FRAMEWORK_ERRORS: Record<string, Mapped> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: "UnsupportedMediaType", message: "Send the body as application/json" },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: "BadRequest", message: "Content-Length does not match the body" },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: "BadRequest", message: "The JSON body is empty" },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: "BadRequest", message: "The body is not valid JSON" },
};

function validationDetails(error: FastifyError): ErrorDetail[] {
  const where = error.validationContext ?? "body";
  return (error.validation ?? []).map((v) => {
    const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
    const path = [v.instancePath.replace(/^\//, ""), missing].filter(Boolean).join("/");
    const message = missing ? "is required" : (v.message ?? "is not valid");
    return { field: path ? `${where}/${path}` : where, message };
  });
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

/** Maps anything thrown to the public error model; unknown errors never leak their text. */
export function mapError(error: unknown, scopePrefix: string): Mapped {
  if (error instanceof InsufficientPermissions) return insufficientPermissions(error, scopePrefix);
  if (error instanceof AppError) return { code: error.code, message: error.message, details: error.details };
  const fe = error as Partial<FastifyError>;
  if (fe.validation) {
    const details = validationDetails(fe as FastifyError);
    return {
      code: "ValidationFailed",
      message: `Validation failed: ${details.map((d) => `${d.field} ${d.message}`).join("; ")}`,
      details,
    };
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
): void {
  app.setErrorHandler((error, request, reply) => {
    const mapped = mapError(error, scopePrefix);
    const status = statusOf(mapped.code);
    if (status >= 500) request.log.error({ err: error }, "request failed");
    else request.log.info({ errorCode: mapped.code }, mapped.message);
    void reply.status(status).send({
      errorCode: mapped.code,
      errorMessage: mapped.message,
      requestId: request.id,
      ...(mapped.details ? { details: mapped.details } : {}),
    });
  });
  // A path the app has, asked with a method it has not, is a 405 naming the methods it has.
  app.setNotFoundHandler((request, reply) => {
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

/** Requests too malformed to reach Fastify (bad HTTP, huge headers) still get the error body. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const body = JSON.stringify({
    errorCode: status === 408 ? "RequestTimeout" : "BadRequest",
    errorMessage:
      status === 431
        ? "The request headers are too large"
        : status === 408
          ? "The request took too long"
          : "The request is not valid HTTP",
    requestId: newId(),
  });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
