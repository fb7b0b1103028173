/** The built-in OAuth 2.0 authorization server and bearer verification: PUBLIC_URL, OAUTH_*, *_TOKEN_TTL. */

import type { Pick } from "./shared.js";

export interface OAuthSettings {
  /** PUBLIC_URL: where clients reach this server; the token issuer. Unset: http://HOST:PORT. */
  publicUrl: string | undefined;
  /** OAUTH_AUDIENCE: the `aud` every access token must carry. */
  audience: string;
  /** ACCESS_TOKEN_TTL in seconds. */
  accessTokenTtl: number;
  /** REFRESH_TOKEN_TTL in seconds; each rotation starts a new period. */
  refreshTokenTtl: number;
  /** OAUTH_EXTERNAL_ISSUER + OAUTH_JWKS_URL: also trust access tokens of another issuer. */
  external: { issuer: string; jwksUrl: string } | undefined;
}

function parseSeconds(text: string, name: string, min: number, max: number, problems: string[]): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    problems.push(`${name} must be a whole number of seconds from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && !url.search && !url.hash;
  } catch {
    return false;
  }
};

export function parseOAuthSettings(pick: Pick, problems: string[]): OAuthSettings {
  const publicUrlText = pick(undefined, "PUBLIC_URL");
  if (publicUrlText !== undefined && !isHttpUrl(publicUrlText)) {
    problems.push(`PUBLIC_URL must be an http:// or https:// URL without query or fragment (got "${publicUrlText}")`);
  }
  const audience = pick(undefined, "OAUTH_AUDIENCE") ?? "social-trading-api";
  if (/\s/.test(audience)) problems.push(`OAUTH_AUDIENCE must not contain spaces (got "${audience}")`);
  const accessTokenTtl = parseSeconds(
    pick(undefined, "ACCESS_TOKEN_TTL") ?? "900",
    "ACCESS_TOKEN_TTL",
    60,
    86_400,
    problems,
  );
  const refreshTokenTtl = parseSeconds(
    pick(undefined, "REFRESH_TOKEN_TTL") ?? String(30 * 86_400),
    "REFRESH_TOKEN_TTL",
    300,
    365 * 86_400,
    problems,
  );
  const jwksUrl = pick(undefined, "OAUTH_JWKS_URL");
  const externalIssuer = pick(undefined, "OAUTH_EXTERNAL_ISSUER");
  if (jwksUrl !== undefined && !isHttpUrl(jwksUrl)) {
    problems.push(`OAUTH_JWKS_URL must be an http:// or https:// URL (got "${jwksUrl}")`);
  }
  if ((jwksUrl === undefined) !== (externalIssuer === undefined)) {
    problems.push("OAUTH_JWKS_URL and OAUTH_EXTERNAL_ISSUER must be set together (the issuer's JWKS and its `iss`)");
  }
  return {
    publicUrl: publicUrlText?.replace(/\/+$/, ""),
    audience,
    accessTokenTtl,
    refreshTokenTtl,
    external: jwksUrl && externalIssuer ? { issuer: externalIssuer, jwksUrl } : undefined,
  };
}
