/** What the server tells the page (decision 0153): public values only, never a secret. */
export interface DashboardConfig {
  /** The dashboard's own public OAuth client (PKCE, no secret). */
  clientId: string;
  /** Where the authorization server sends the browser back: this page. */
  redirectUri: string;
  /** The scopes the dashboard asks for, prefixed, space-separated. */
  scope: string;
  /** The scope prefix of this server (`service-public`). */
  scopePrefix: string;
  /** Whether this server serves the sandbox control API (`/sandbox/v1`): the operator's panel. */
  sandbox: boolean;
}

export function readConfig(): DashboardConfig {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="dashboard-config"]');
  if (!meta) throw new Error("the page has no dashboard-config");
  return JSON.parse(meta.content) as DashboardConfig;
}
