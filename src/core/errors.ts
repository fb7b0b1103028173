/**
 * The one error model. Use cases throw AppError with a code; the HTTP layer maps code → status.
 * Callers branch on `code`, never on the message text.
 */
export const ERROR_STATUS = {
  BadRequest: 400,
  Unauthorized: 401,
  InsufficientPermissions: 403,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  UriTooLong: 414,
  UnsupportedMediaType: 415,
  ValidationFailed: 422,
  TooManyRequests: 429,
  HeadersTooLarge: 431,
  GeneralError: 500,
  ServiceUnavailable: 503,
  RequestTimeout: 408,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  /** Where the problem is: a JSON pointer into the body, or `header:x-request-id`, `query:take`... */
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string) => new AppError("NotFound", `${what} was not found`);
export const validationFailed = (field: string, message: string) =>
  new AppError("ValidationFailed", message, [{ field, message }]);
