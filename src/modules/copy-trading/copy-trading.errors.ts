/**
 * An error upstream documents with its own code and status (`ScopeNameNotAllowed` 403,
 * `UserKeyNameAlreadyExists` 409, `ValidationFailed` 400 …; decision 0143). The routes answer it
 * with the one error body; every other error goes to the app's error handler as usual.
 */
export class UpstreamError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

export const badRequest = (code: string, message: string) => new UpstreamError(400, code, message);
export const portfolioNotFound = () => new UpstreamError(404, "NotFound", "Agent-portfolio not found");
export const tokenNotFound = () => new UpstreamError(404, "NotFound", "User token not found");
