import { escapeHtml } from "../oauth/oauth.pages.js";
import type { Bundle } from "./bundle.js";

/** What the page's script reads from its `dashboard-config` meta tag: public values only. */
export interface PageConfig {
  clientId: string;
  redirectUri: string;
  scope: string;
  scopePrefix: string;
  /** Whether the server serves the sandbox control API: the page then shows the operator's panel. */
  sandbox: boolean;
}

/**
 * The dashboard's Content-Security-Policy (decision 0153): its own script and stylesheet only,
 * no inline script or style, API calls and the WebSocket to this origin only ('self' covers ws:
 * and wss: of the same host in CSP Level 3), images from here (avatars) and data: URLs, no
 * framing, no plugins, no form posts anywhere.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

export function dashboardPage(bundle: Bundle, config: PageConfig): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="dashboard-config" content="${escapeHtml(JSON.stringify(config))}">
<title>Dashboard · Social Trading API</title>
<link rel="stylesheet" href="/dashboard/app.css?v=${bundle.style.version}">
<script type="module" src="/dashboard/app.js?v=${bundle.script.version}"></script>
</head>
<body>
<div id="app"><noscript><p>The dashboard needs JavaScript. The API itself is documented at <a href="/docs">/docs</a>.</p></noscript></div>
</body>
</html>
`;
}

/** Served instead when the front end was not bundled (dev dependencies omitted at install). */
export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body>
<h1>The dashboard is not built</h1>
<p>This server was installed without its front-end bundle. Run <code>npm install</code> (with dev dependencies) and <code>npm run build</code>, then restart it.</p>
</body>
</html>
`;
