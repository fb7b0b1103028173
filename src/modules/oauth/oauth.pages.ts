import { createHash } from "node:crypto";

/**
 * The authorization server's pages: server-rendered, no external assets, no script, usable with a
 * keyboard alone (native form controls in document order, visible focus, labelled fields).
 */
const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
body { margin: 0; background: Canvas; color: CanvasText; }
main { max-width: 28rem; margin: 3rem auto; padding: 2rem; border: 1px solid #8886; border-radius: 12px; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
p { line-height: 1.5; }
.client { font-weight: 700; }
ul.scopes { padding-left: 1.2rem; }
ul.scopes li { margin: .4rem 0; }
ul.scopes code { font-size: .8rem; opacity: .75; display: block; }
label { display: block; margin: 1rem 0 .3rem; font-weight: 600; }
input[type=text], input[type=password] { box-sizing: border-box; width: 100%; padding: .6rem; font-size: 1rem;
  border: 1px solid #888; border-radius: 6px; background: Field; color: FieldText; }
.actions { display: flex; gap: .8rem; margin-top: 1.5rem; }
button { flex: 1; padding: .7rem 1rem; font-size: 1rem; border-radius: 6px; border: 1px solid #555; cursor: pointer; }
button.primary { background: #1d6b3a; color: #fff; border-color: #1d6b3a; }
button.secondary { background: transparent; color: CanvasText; }
button.link { flex: none; background: none; border: none; padding: 0; color: LinkText; text-decoration: underline; font-size: .9rem; }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.error { border-left: 4px solid #c62828; padding: .5rem .8rem; background: #c628281a; }
.muted { font-size: .9rem; opacity: .8; }
`;

/** The Content-Security-Policy of every page: nothing but this exact inline style may load. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "img-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const hidden = (values: Record<string, string | undefined>) =>
  Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v!)}">`)
    .join("\n");

const scopeList = (scopes: { scope: string; words: string }[]) =>
  `<ul class="scopes">${scopes
    .map((s) => `<li>${escapeHtml(s.words)}<code>${escapeHtml(s.scope)}</code></li>`)
    .join("")}</ul>`;

export interface LoginPageInput {
  clientName: string;
  scopes: { scope: string; words: string }[];
  params: Record<string, string | undefined>;
  csrfToken: string;
  username?: string | undefined;
  error?: string | undefined;
}

export function loginPage(input: LoginPageInput): string {
  return layout(
    "Sign in",
    `<h1>Sign in to continue</h1>
<p><span class="client">${escapeHtml(input.clientName)}</span> wants to use your account. Sign in first; you will then decide what it may do.</p>
${input.error ? `<p class="error" role="alert" id="login-error">${escapeHtml(input.error)}</p>` : ""}
<form method="post" action="/oauth/login">
${hidden({ ...input.params, csrf_token: input.csrfToken })}
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus value="${escapeHtml(input.username ?? "")}"${input.error ? ' aria-describedby="login-error"' : ""}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
<p class="muted">It asks for:</p>
${scopeList(input.scopes)}`,
  );
}

export interface ConsentPageInput {
  clientName: string;
  username: string;
  scopes: { scope: string; words: string }[];
  params: Record<string, string | undefined>;
  csrfToken: string;
  environment: string;
}

export function consentPage(input: ConsentPageInput): string {
  return layout(
    `Allow ${input.clientName}?`,
    `<h1>Allow <span class="client">${escapeHtml(input.clientName)}</span> to use your account?</h1>
<p>Signed in as <strong>${escapeHtml(input.username)}</strong>. If you allow it, <span class="client">${escapeHtml(input.clientName)}</span> will be able to:</p>
${scopeList(input.scopes)}
<p class="muted">Account: ${input.environment === "real" ? "real money" : "demo (virtual money)"}. You can revoke this access at any time.</p>
<form method="post" action="/oauth/authorize">
${hidden({ ...input.params, csrf_token: input.csrfToken })}
<div class="actions">
<button type="submit" name="decision" value="allow" class="primary" autofocus>Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
<form method="post" action="/oauth/logout">
${hidden({ ...input.params, csrf_token: input.csrfToken })}
<p class="muted">Not ${escapeHtml(input.username)}? <button type="submit" class="link">Sign in as someone else</button></p>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="muted">Go back to the application and try again. If this keeps happening, tell the application's developer.</p>`,
  );
}
