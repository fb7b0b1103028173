import { systemActor } from "../../core/actor.js";
import { type Deps, withActor } from "../context.js";
import { createClient, listClients, redirectUriMatches } from "../oauth/clients.js";

/** The name of the dashboard's OAuth client, as the consent page shows it. */
export const DASHBOARD_CLIENT_NAME = "Dashboard";

/** The loopback IP literals on which any port matches a registered redirect URI (RFC 8252 §7.3). */
const LOOPBACK = ["127.0.0.1", "[::1]"];

/**
 * The dashboard's own public OAuth client (PKCE, no secret: decision 0153), registered on first
 * use: the server is a client of its own authorization server. On a loopback issuer the client
 * lists `http://127.0.0.1/dashboard` and `http://[::1]/dashboard`, which match any port, so a
 * restart on another port reuses it; behind PUBLIC_URL it lists that URL's `/dashboard`. A client
 * of that name that an operator revoked is not replaced: revoking it switches the sign-in off.
 */
export async function ensureDashboardClient(deps: Deps, redirectUri: string): Promise<string> {
  const ctx = withActor(deps, systemActor("dashboard"));
  const existing = (await listClients(ctx)).find(
    (c) => c.name === DASHBOARD_CLIENT_NAME && c.type === "public" && redirectUriMatches(c.redirectUris, redirectUri),
  );
  if (existing) return existing.clientId;
  const url = new URL(redirectUri);
  const redirectUris =
    url.protocol === "http:" && LOOPBACK.includes(url.hostname)
      ? LOOPBACK.map((host) => `http://${host}${url.pathname}`)
      : [redirectUri];
  const created = await createClient(ctx, { name: DASHBOARD_CLIENT_NAME, isPublic: true, redirectUris });
  return created.clientId;
}
