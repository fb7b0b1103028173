/**
 * Scopes are held internally without their namespace prefix (`feed:read`); the prefix
 * (`service-public` by default) is added at the edge. Access is deny-by-default and any-of.
 */

/**
 * The one table of scopes: every scope this server knows and what it lets an application do, in
 * the plain words the consent page and the OpenAPI document show.
 */
export const SCOPES = {
  "agent-portfolio:read": "See your agent portfolios",
  "agent-portfolio:write": "Create and manage your agent portfolios",
  "club:read": "See your club membership",
  "demo:read": "See your demo (virtual money) account",
  "demo:write": "Act on your demo (virtual money) account",
  "feed:read": "Read feeds, posts and comments as you",
  "feed:write": "Post, comment, like and vote as you",
  "money.balance:read": "See your money balances",
  "money.cash-transactions:read": "See your cash transactions",
  "money.transfer:read": "See your money transfers",
  "money.transfer:write": "Make money transfers for you",
  "money:transfer": "Move your money",
  "notifications:read": "Read your notifications",
  "notifications:write": "Mark your notifications as read",
  "pi-data:read": "See your Popular Investor data",
  "price-alerts:read": "See your price alerts",
  "price-alerts:write": "Create, change and delete your price alerts",
  "real:read": "See your real-money account",
  "real:write": "Act on your real-money account",
  "sso-applications:read": "See the applications you have signed in to",
  "sso-applications:write": "Manage the applications you have signed in to",
  "sso-scopes:read": "See the permissions you have given applications",
  "sso-scopes:write": "Change the permissions you have given applications",
  "sub-accounts:read": "See your sub-accounts",
  "sub-accounts:write": "Create and manage your sub-accounts",
  "trade.demo:read": "See your demo positions, orders and history",
  "trade.demo:write": "Open and close demo (virtual money) positions for you",
  "trade.real:read": "See your real-money positions, orders and history",
  "trade.real:write": "Open and close real-money positions for you",
  "user-info:read": "See your profile: name, username and account numbers",
  "user-info:write": "Choose whether your profile and portfolio are public and whether others may copy you",
  "watchlist:read": "See your watchlists",
  "watchlist:write": "Create, change and delete your watchlists",
} as const satisfies Record<string, string>;

/** A scope an application or a key pair may be granted (the consent page, `keys create`). */
export type GrantableScope = keyof typeof SCOPES;

/**
 * The operator's scope (docs/decisions/0149): it admits to the sandbox control API. It is not in
 * SCOPES, so no OAuth application can ask for it and `keys create --scopes` refuses it; only
 * `sandbox operator-key` (the operator at the CLI) issues a key pair that holds it.
 */
export const OPERATOR_SCOPE = "sandbox:operate";
export const OPERATOR_SCOPE_WORDS =
  "Drive the sandbox: prices, the clock, demo balances, the world and injected faults";
export type OperatorScope = typeof OPERATOR_SCOPE;

/** Every scope an operation may accept: the grantable ones and the operator's. */
export type Scope = GrantableScope | OperatorScope;

export const KNOWN_SCOPES: readonly GrantableScope[] = Object.keys(SCOPES) as GrantableScope[];

const known: ReadonlySet<string> = new Set(KNOWN_SCOPES);

/** Whether `value` may be granted to an application or a key pair (never the operator's scope). */
export function isKnownScope(value: string): value is GrantableScope {
  return known.has(value);
}

/** Whether an operation may name `value` among the scopes it accepts. */
export const isAcceptableScope = (value: string): value is Scope => value === OPERATOR_SCOPE || known.has(value);

/** `service-public:feed:read` or `feed:read` → `feed:read`; anything else → null. */
export function normalizeScope(input: string, prefix: string): GrantableScope | null {
  const trimmed = input.trim();
  const bare = trimmed.startsWith(`${prefix}:`) ? trimmed.slice(prefix.length + 1) : trimmed;
  return isKnownScope(bare) ? bare : null;
}

export function withPrefix(scope: string, prefix: string): string {
  return `${prefix}:${scope}`;
}

declare const anyAuthenticatedBrand: unique symbol;
/** See ANY_AUTHENTICATED. Branded: no look-alike object literal has this type. */
export interface AnyAuthenticated {
  readonly [anyAuthenticatedBrand]: true;
  readonly description: "any authenticated user";
}

/**
 * The explicit marker of an operation any authenticated user may call, whatever its scopes
 * (`GET /api/v1/me`). Checked by identity: nothing else, no empty list and no look-alike, says so.
 */
export const ANY_AUTHENTICATED = Object.freeze({ description: "any authenticated user" }) as AnyAuthenticated;

/** What an operation accepts: at least one scope (any-of), or explicitly any authenticated user. */
export type AcceptedScopes = readonly [Scope, ...Scope[]] | AnyAuthenticated;

export const isAnyAuthenticated = (accepted: AcceptedScopes): accepted is AnyAuthenticated =>
  accepted === ANY_AUTHENTICATED;

/** The scopes named (none for ANY_AUTHENTICATED): what a 403 or the OpenAPI document lists. */
export const namedScopes = (accepted: AcceptedScopes): readonly Scope[] =>
  isAnyAuthenticated(accepted) ? [] : accepted;

/**
 * Deny by default, any-of: a caller is admitted when it holds at least one accepted scope, or
 * when the operation is explicitly open to any authenticated user. A list that names no scope
 * (only reachable past the type by a cast or untyped data) admits nobody.
 */
export function isAdmitted(granted: readonly string[], accepted: AcceptedScopes): boolean {
  if (isAnyAuthenticated(accepted)) return true;
  if (!Array.isArray(accepted)) return false;
  return accepted.some((scope) => granted.includes(scope));
}

/**
 * Checks a declaration made outside the type system's reach (a route's config): a non-empty list
 * of known scopes, or the marker. Returns what is wrong, or null.
 */
export function acceptedScopesProblem(accepted: unknown): string | null {
  if (accepted === ANY_AUTHENTICATED) return null;
  if (!Array.isArray(accepted)) return "scopes must be a non-empty list of scopes or ANY_AUTHENTICATED";
  if (accepted.length === 0) {
    return "an empty list of scopes admits nobody: name the accepted scopes, or use ANY_AUTHENTICATED";
  }
  const unknown = accepted.filter((s) => typeof s !== "string" || !isAcceptableScope(s));
  return unknown.length > 0 ? `unknown scopes: ${unknown.join(", ")}` : null;
}
