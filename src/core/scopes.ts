/**
 * Scopes are held internally without their namespace prefix (`feed:read`); the prefix
 * (`service-public` by default) is added at the edge. Access is deny-by-default and any-of.
 */
export const KNOWN_SCOPES = [
  "agent-portfolio:read",
  "agent-portfolio:write",
  "club:read",
  "demo:read",
  "demo:write",
  "feed:read",
  "feed:write",
  "money.balance:read",
  "money.cash-transactions:read",
  "money.transfer:read",
  "money.transfer:write",
  "money:transfer",
  "notifications:read",
  "notifications:write",
  "pi-data:read",
  "price-alerts:read",
  "price-alerts:write",
  "real:read",
  "real:write",
  "sso-applications:read",
  "sso-applications:write",
  "sso-scopes:read",
  "sso-scopes:write",
  "sub-accounts:read",
  "sub-accounts:write",
  "trade.demo:read",
  "trade.demo:write",
  "trade.real:read",
  "trade.real:write",
  "user-info:read",
  "watchlist:read",
  "watchlist:write",
] as const;

export type Scope = (typeof KNOWN_SCOPES)[number];

const known: ReadonlySet<string> = new Set(KNOWN_SCOPES);

export function isKnownScope(value: string): value is Scope {
  return known.has(value);
}

/** `service-public:feed:read` or `feed:read` → `feed:read`; anything else → null. */
export function normalizeScope(input: string, prefix: string): Scope | null {
  const trimmed = input.trim();
  const bare = trimmed.startsWith(`${prefix}:`) ? trimmed.slice(prefix.length + 1) : trimmed;
  return isKnownScope(bare) ? bare : null;
}

export function withPrefix(scope: string, prefix: string): string {
  return `${prefix}:${scope}`;
}

/**
 * Any-of: a caller is allowed when it holds at least one of the accepted scopes.
 * An operation that accepts no scope at all is open to every authenticated caller.
 */
export function hasAnyScope(granted: readonly string[], accepted: readonly string[]): boolean {
  if (accepted.length === 0) return true;
  return accepted.some((scope) => granted.includes(scope));
}
