/**
 * Errors of the authorization server travel in OAuth's own format (RFC 6749 §5.2),
 * `{ "error", "error_description" }`, not the API's error body: OAuth client libraries read them.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "access_denied"
  | "unsupported_response_type"
  | "server_error";

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;

  constructor(error: OAuthErrorCode, description: string, status?: number) {
    super(description);
    this.name = "OAuthError";
    this.error = error;
    this.status = status ?? (error === "invalid_client" ? 401 : error === "server_error" ? 500 : 400);
  }
}
