import { normalizeScope, type Scope, withPrefix } from "../../core/scopes.js";

/** What the consent page says each scope lets an application do, in plain words. */
export const SCOPE_WORDS: Record<Scope, string> = {
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
  "watchlist:read": "See your watchlists",
  "watchlist:write": "Create, change and delete your watchlists",
};

/**
 * A space-separated OAuth `scope` → bare scopes, or the unknown ones. Scopes are accepted with
 * or without the prefix; duplicates collapse; order is kept.
 */
export function parseScopeParam(text: string, prefix: string): { scopes: Scope[]; unknown: string[] } {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const part of text.split(" ").filter((s) => s !== "")) {
    const scope = normalizeScope(part, prefix);
    if (scope === null) unknown.push(part);
    else if (!scopes.includes(scope)) scopes.push(scope);
  }
  return { scopes, unknown };
}

/** The wire form of a token's scope: prefixed and space-separated. */
export const scopeString = (scopes: readonly string[], prefix: string) =>
  scopes.map((s) => withPrefix(s, prefix)).join(" ");
