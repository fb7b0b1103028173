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
  MethodNotAllowed: 405,
  Conflict: 409,
  PayloadTooLarge: 413,
  UriTooLong: 414,
  UnsupportedMediaType: 415,
  ValidationFailed: 422,
  TooManyRequests: 429,
  HeadersTooLarge: 431,
  GeneralError: 500,
  ServiceUnavailable: 503,
  InsufficientStorage: 507,
  RequestTimeout: 408,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * One broken rule, in the use case's words (docs/decisions/0096). The HTTP layer rewrites both
 * parts for the client: the field to its wire path (`body/Amount`, `querystring/take`,
 * `params/postId`, `headers/x-request-id`), the problem to a sentence naming that path.
 */
export interface Problem {
  /**
   * The input, by its domain path: `amount`, `stopLossRate`, `attachments[2].url`,
   * `items[0].itemId` (dots between properties, brackets around indexes). Never a wire name.
   */
  field: string;
  /**
   * What is wrong, as the rest of a sentence whose subject is the field, without the final period:
   * `must be at least 10 USD (the minimum position amount for AAPL); got 9.99 USD`. Another field
   * is named in braces, `{isNoStopLoss}`, so that each reader sees it in its own terms; what the
   * client sent is quoted with JSON.stringify.
   */
  problem: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly problems: readonly Problem[] | undefined;

  constructor(code: ErrorCode, message: string, problems?: readonly Problem[]) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.problems = problems;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string) => new AppError("NotFound", `${what} was not found`);

/** `Subject problem.`: one sentence, capitalised, ending in a single period. */
export function sentence(subject: string, problem: string): string {
  const text = `${subject} ${problem.trim().replace(/[\s.]+$/, "")}`.trim();
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** `a`, `a or b`, `a, b or c` (with "and" if asked). */
export function listOf(items: readonly string[], conjunction: "or" | "and" = "or"): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} ${conjunction} ${items.at(-1)}`;
}

/**
 * `{field}` references in a problem, each rendered by `name`. Text in double quotes is kept as it
 * is: a problem quotes what the client sent with JSON.stringify, braces and all.
 */
export const renderReferences = (problem: string, name: (field: string) => string) =>
  problem.replace(/"(?:[^"\\]|\\.)*"|\{([A-Za-z][\w.[\]]*)\}/g, (text, field: string | undefined) =>
    field === undefined ? text : name(field),
  );

/**
 * A 422 naming every broken rule. Its message, for logs and the CLI, says them in domain words;
 * the HTTP layer writes its own from the wire paths.
 */
export function validationFailed(problems: readonly Problem[]): AppError {
  const clauses = problems.map((p) => `${p.field} ${renderReferences(p.problem, (f) => f).replace(/[\s.]+$/, "")}`);
  const message =
    clauses.length === 1
      ? sentence("", clauses[0]!)
      : sentence(`The request has ${clauses.length} problems:`, clauses.join("; "));
  return new AppError("ValidationFailed", message, problems);
}

/** A 422 for one broken rule. */
export const invalid = (field: string, problem: string) => validationFailed([{ field, problem }]);
