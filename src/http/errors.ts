import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, ERROR_STATUS, type ErrorCode, type ErrorDetail } from "../core/errors.js";
import { newId } from "../core/ids.js";

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

/** Maps anything thrown to the public error model; unknown errors never leak their text. */
export function mapError(error: unknown): Mapped {
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

export function registerErrorHandling(app: FastifyInstance, statusOf: (code: ErrorCode) => number): void {
  app.setErrorHandler((error, request, reply) => {
    const mapped = mapError(error);
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
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({
      errorCode: "NotFound",
      errorMessage: `No operation ${request.method} ${request.url.split("?")[0]}`,
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
