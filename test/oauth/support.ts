import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { setPassword } from "../../src/modules/identity/set-password.js";
import { type CreatedClient, createClient } from "../../src/modules/oauth/clients.js";
import type { Harness } from "../support/harness.js";

export const REDIRECT = "https://app.example/callback";
export const PASSWORD = "correct horse battery staple";

export const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

export async function passwordUser(h: Harness, password = PASSWORD) {
  const operator = withActor(h.deps, systemActor("test"));
  const user = await createUser(operator, { username: `pw_${randomBytes(4).toString("hex")}` });
  await setPassword(operator, user.id, password);
  return user;
}

export async function client(
  h: Harness,
  options: { isPublic?: boolean; redirectUris?: string[]; name?: string } = {},
): Promise<CreatedClient> {
  return createClient(withActor(h.deps, systemActor("test")), {
    name: options.name ?? "Chart Buddy",
    redirectUris: options.redirectUris ?? [REDIRECT],
    isPublic: options.isPublic,
  });
}

export const form = (values: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined)).toString();

export const FORM = { "content-type": "application/x-www-form-urlencoded" };

export const hiddenValue = (html: string, name: string): string => {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  expect(match, `hidden input ${name}`).not.toBeNull();
  return match![1]!
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
};

type Cookies = Record<string, string>;
const cookiesOf = (res: { cookies: { name: string; value: string }[] }, into: Cookies = {}): Cookies => {
  for (const c of res.cookies) into[c.name] = c.value;
  return into;
};

export interface BrowserLike {
  cookies: Cookies;
}

/**
 * Drives the login and consent pages through app.inject like a browser without JavaScript would:
 * follows the same forms, keeps cookies. Returns the final redirect to the client.
 */
export async function authorizeViaForms(
  h: Pick<Harness, "app">,
  params: Record<string, string | undefined>,
  credentials: { username: string; password: string },
  decision: "allow" | "deny" = "allow",
  browser: BrowserLike = { cookies: {} },
): Promise<{ location: string; url: URL }> {
  const first = await h.app.inject({
    method: "GET",
    url: `/oauth/authorize?${form(params)}`,
    cookies: browser.cookies,
  });
  cookiesOf(first, browser.cookies);
  let consentHtml: string;
  if (first.body.includes('action="/oauth/login"')) {
    expect(first.statusCode).toBe(200);
    const login = await h.app.inject({
      method: "POST",
      url: "/oauth/login",
      headers: FORM,
      cookies: browser.cookies,
      payload: form({
        ...Object.fromEntries(
          [
            "response_type",
            "client_id",
            "redirect_uri",
            "scope",
            "state",
            "code_challenge",
            "code_challenge_method",
          ].map((k) => [k, safeHidden(first.body, k)]),
        ),
        csrf_token: hiddenValue(first.body, "csrf_token"),
        username: credentials.username,
        password: credentials.password,
      }),
    });
    expect(login.statusCode).toBe(303);
    cookiesOf(login, browser.cookies);
    const consent = await h.app.inject({
      method: "GET",
      url: login.headers.location as string,
      cookies: browser.cookies,
    });
    expect(consent.statusCode).toBe(200);
    consentHtml = consent.body;
  } else {
    expect(first.statusCode).toBe(200);
    consentHtml = first.body;
  }
  expect(consentHtml).toContain('value="allow"');
  const carried = Object.fromEntries(
    ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"].map(
      (k) => [k, safeHidden(consentHtml, k)],
    ),
  );
  const decided = await h.app.inject({
    method: "POST",
    url: "/oauth/authorize",
    headers: FORM,
    cookies: browser.cookies,
    payload: form({ ...carried, csrf_token: hiddenValue(consentHtml, "csrf_token"), decision }),
  });
  expect(decided.statusCode).toBe(303);
  const location = decided.headers.location as string;
  return { location, url: new URL(location) };
}

function safeHidden(html: string, name: string): string | undefined {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return match
    ? match[1]!
        .replace(/&amp;/g, "&")
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
    : undefined;
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
