export {
  type ClientOptions,
  createClient,
  type GetData,
  ok,
  type PagedPath,
  type SocialTradingClient,
} from "./client.js";
export type { Auth, Bearer, Credentials, KeyPair, TokenSet } from "./credentials.js";
export { ApiError, type ErrorDetail } from "./errors.js";
export type { components, operations, paths } from "./generated/schema.js";
export * from "./realtime.js";
export { RETRIED_STATUSES, type RetryOptions } from "./transport.js";
