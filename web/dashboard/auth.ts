import type { DashboardConfig } from "./config.ts";

/*
 * Sign-in through the server's own authorization server: the authorization code flow with PKCE
 * (RFC 7636, S256) for a public client (decision 0153). The tokens live in sessionStorage, i.e. in
 * this tab's session only; the page holds no other secret.
 */

export interface Tokens {
  accessToken: string;
  refreshToken: string | null;
  /** Epoch milliseconds at which the access token expires. */
  expiresAt: number;
  scope: string;
}

const TOKENS_KEY = "sta-dashboard-tokens";
const PENDING_KEY = "sta-dashboard-pending";

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

const randomText = (bytes: number) => base64url(crypto.getRandomValues(new Uint8Array(bytes)));

export function storedTokens(): Tokens | null {
  const text = sessionStorage.getItem(TOKENS_KEY);
  return text ? (JSON.parse(text) as Tokens) : null;
}

function store(tokens: Tokens | null): void {
  if (tokens) sessionStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  else sessionStorage.removeItem(TOKENS_KEY);
}

/** Sends the browser to the sign-in and consent pages. */
export async function beginSignIn(config: DashboardConfig): Promise<void> {
  const verifier = randomText(32);
  const state = randomText(16);
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state }));
  const params = new URLSearchParams({
    response_type: "code",
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: config.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  location.assign(`/oauth/authorize?${params.toString()}`);
}

interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
  scope: string;
}

async function tokenRequest(form: Record<string, string>): Promise<Tokens> {
  const response = await fetch("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.json()) as TokenResponse & { error?: string; error_description?: string };
  if (!response.ok)
    throw new Error(body.error_description ?? body.error ?? `token endpoint answered ${response.status}`);
  return {
    accessToken: body.access_token,
    refreshToken: body.refresh_token ?? null,
    expiresAt: Date.now() + body.expires_in * 1000,
    scope: body.scope,
  };
}

/**
 * Back from the consent page: `?code=…&state=…` (or `?error=…`). Exchanges the code for tokens
 * once, then removes the parameters from the address bar. Null when the URL carries no answer.
 */
export async function completeSignIn(config: DashboardConfig): Promise<Tokens | null> {
  const query = new URLSearchParams(location.search);
  if (!query.has("code") && !query.has("error")) return null;
  history.replaceState(null, "", location.pathname);
  const pending = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const error = query.get("error");
  if (error) throw new Error(query.get("error_description") ?? error);
  const { verifier, state } = pending ? (JSON.parse(pending) as { verifier: string; state: string }) : {};
  if (!verifier || query.get("state") !== state) throw new Error("This sign-in did not start here; sign in again.");
  const tokens = await tokenRequest({
    grant_type: "authorization_code",
    code: query.get("code") ?? "",
    redirect_uri: config.redirectUri,
    client_id: config.clientId,
    code_verifier: verifier,
  });
  store(tokens);
  return tokens;
}

let refreshing: Promise<Tokens | null> | null = null;

/**
 * A fresh access token from the refresh token, or null when there is none left. One at a time:
 * the refresh token rotates, and presenting a spent one revokes the whole grant (decision 0034),
 * so the socket's reconnect and an API call needing a token at once share one refresh.
 */
export function refresh(config: DashboardConfig): Promise<Tokens | null> {
  refreshing ??= refreshOnce(config).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

async function refreshOnce(config: DashboardConfig): Promise<Tokens | null> {
  const current = storedTokens();
  if (!current?.refreshToken) return null;
  try {
    const tokens = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: current.refreshToken,
      client_id: config.clientId,
    });
    store(tokens);
    return tokens;
  } catch {
    store(null);
    return null;
  }
}

/** Revokes the grant (the refresh token and its access tokens) and forgets the tokens. */
export async function signOut(config: DashboardConfig): Promise<void> {
  const current = storedTokens();
  store(null);
  if (!current?.refreshToken) return;
  await fetch("/oauth/revoke", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      token: current.refreshToken,
      token_type_hint: "refresh_token",
      client_id: config.clientId,
    }).toString(),
  })
    // read to the end: an unread body is cancelled, which Chromium reports as a failed load
    .then((response) => response.text())
    .catch(() => {});
}
