import { normalizeScope, type GrantableScope as Scope, withPrefix } from "../../core/scopes.js";

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
