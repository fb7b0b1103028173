import { ApiError } from "./errors.js";

/** The key pair: x-api-key (the application's) and x-user-key (the user's). */
export interface KeyPair {
  apiKey: string;
  userKey: string;
}

/** The token endpoint's answer (RFC 6749 §5.1). */
export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

/** An OAuth 2.0 bearer token, refreshed through the token endpoint when it has a refresh token. */
export interface Bearer {
  accessToken: string;
  refreshToken?: string;
  /** The app's client_id: needed to refresh. */
  clientId?: string;
  /** A confidential app's secret (sent as client_secret_post). */
  clientSecret?: string;
  /** Default: `<baseUrl>/oauth/token`. */
  tokenUrl?: string;
  /** Called with every new token set: refresh tokens rotate, so store the new one. */
  onRefresh?: (tokens: TokenSet) => void | Promise<void>;
}

export type Credentials = KeyPair | Bearer;

/** What the HTTP and real-time clients need of a credential. */
export interface Auth {
  /** Sets the credential's headers on a request. */
  apply(headers: Headers): Promise<void>;
  /** After a 401: gets a new access token when it can; true when the call is worth retrying. */
  refresh(): Promise<boolean>;
  /** The data of the real-time channel's Authenticate. */
  realtime(): Promise<Record<string, string>>;
}

const isKeyPair = (c: Credentials): c is KeyPair => "apiKey" in c;

/** The Auth of `credentials`; `fetch` and `baseUrl` serve the token endpoint. */
export function authFor(credentials: Credentials, baseUrl: string, fetch: typeof globalThis.fetch): Auth {
  if (isKeyPair(credentials)) {
    const { apiKey, userKey } = credentials;
    return {
      async apply(headers) {
        headers.set("x-api-key", apiKey);
        headers.set("x-user-key", userKey);
      },
      async refresh() {
        return false;
      },
      async realtime() {
        return { apiKey, userKey };
      },
    };
  }
  const state = { ...credentials };
  const tokenUrl = state.tokenUrl ?? `${baseUrl.replace(/\/$/, "")}/oauth/token`;
  // One refresh at a time: concurrent 401s share it (a refresh token is spent on use).
  let refreshing: Promise<boolean> | undefined;
  const refreshOnce = async (): Promise<boolean> => {
    if (!state.refreshToken || !state.clientId) return false;
    const form = new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: state.refreshToken,
      client_id: state.clientId,
      ...(state.clientSecret ? { client_secret: state.clientSecret } : {}),
    });
    const response = await fetch(tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
    });
    if (!response.ok) throw await ApiError.of(response);
    const tokens = (await response.json()) as TokenSet;
    state.accessToken = tokens.access_token;
    if (tokens.refresh_token) state.refreshToken = tokens.refresh_token;
    await state.onRefresh?.(tokens);
    return true;
  };
  return {
    async apply(headers) {
      if (refreshing) await refreshing.catch(() => undefined);
      headers.set("authorization", `Bearer ${state.accessToken}`);
    },
    refresh() {
      refreshing ??= refreshOnce().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
    async realtime() {
      if (refreshing) await refreshing.catch(() => undefined);
      return { accessToken: state.accessToken };
    },
  };
}
