import { systemActor } from "../core/actor.js";
import { type Deps, withActor } from "../modules/context.js";
import { createUser } from "../modules/identity/create-user.js";
import { identityRepository, type UserRow } from "../modules/identity/identity.repository.js";
import { createKeyPair, type IssuedKeyPair, listKeyPairs, revokeKeyPair } from "../modules/identity/key-pairs.js";
import { setPassword } from "../modules/identity/set-password.js";
import { ensureInstrumentCatalog } from "../modules/market/seed-catalog.js";
import { notify } from "../modules/notifications/notify.js";
import { createClient, listClients } from "../modules/oauth/clients.js";
import { seedTradingHistory } from "../modules/people/history/seed-history.js";
import { seedSocial } from "../modules/social/seed-social.js";
import { seedWatchlists } from "../modules/watchlists/seed-watchlists.js";

export const DEMO_USERNAME = "demo";
/** The demo user's password on the OAuth sign-in page, set when the seed creates the user. */
export const DEMO_PASSWORD = "demo-password";
/** A public OAuth client for the docs page's "Authorize" (Swagger UI, PKCE). */
export const DOCS_CLIENT_NAME = "API docs (Swagger UI)";

const PEOPLE = [
  { username: DEMO_USERNAME, firstName: "Dana", lastName: "Demo", countryCode: 826 },
  { username: "alice", firstName: "Alice", lastName: "Anders", countryCode: 840 },
  { username: "bob", firstName: "Bob", lastName: "Brenner", countryCode: 276 },
  { username: "carmen", firstName: "Carmen", lastName: "Costa", countryCode: 724, isPrivate: true },
] as const;

/** Every scope a sandbox user could want, for the credentials printed at start. */
export const DEMO_SCOPES = [
  "notifications:read",
  "notifications:write",
  "feed:read",
  "feed:write",
  "watchlist:read",
  "watchlist:write",
  "demo:read",
  "demo:write",
  "trade.demo:read",
  "trade.demo:write",
  "user-info:read",
];

export interface SeedReport {
  created: string[];
  demoUser: UserRow;
}

/** Idempotent: creates what is missing of the demo world and leaves the rest alone. */
export async function seedDemoWorld(deps: Deps, onProgress: (step: string) => void = () => {}): Promise<SeedReport> {
  const ctx = withActor(deps, systemActor("seed"));
  const repo = identityRepository(deps.db.kysely);
  const created: string[] = [];
  const instruments = await ensureInstrumentCatalog(deps);
  if (instruments > 0) {
    onProgress("instruments");
    created.push(`${instruments} instruments`);
  }
  for (const person of PEOPLE) {
    if (await repo.findUserByUsername(person.username)) continue;
    onProgress(`user ${person.username}`);
    await createUser(ctx, person);
    created.push(person.username);
  }
  const demoUser = (await repo.findUserByUsername(DEMO_USERNAME)) as UserRow;
  if (created.includes(DEMO_USERNAME)) {
    await setPassword(ctx, DEMO_USERNAME, DEMO_PASSWORD);
    onProgress("notifications");
    const base = deps.clock.now().getTime();
    const messages = [
      "The demo market is open around the clock: prices move every second.",
      "Tip: read the docs page at /docs and try a call with your key pair.",
      "New: watchlists can be published for other users to follow.",
    ];
    for (const [i, message] of messages.entries()) {
      await notify(deps, {
        userId: demoUser.id,
        kind: "announcement",
        message,
        actionLink: "/docs",
        publishDate: new Date(base - (i + 1) * 3_600_000).toISOString(),
      });
    }
  }
  for (const person of PEOPLE) {
    if (!created.includes(person.username)) continue;
    const user = (await repo.findUserByUsername(person.username)) as UserRow;
    if ((await seedWatchlists(deps, { userId: user.id, gcid: user.gcid, username: user.username })) > 0) {
      onProgress(`watchlists of ${person.username}`);
    }
  }
  const posts = await seedSocial(
    deps,
    PEOPLE.map((p) => p.username),
  );
  if (posts > 0) {
    onProgress("posts, comments, likes and follows");
    created.push(`${posts} posts`);
  }
  const traders = await seedTradingHistory(deps, onProgress);
  if (traders > 0) created.push(`${deps.config.people.seedHistoryDays} days of history for ${traders} traders`);
  return { created, demoUser };
}

/** The docs page's OAuth client id, registering it on first use (any loopback port matches). */
export async function ensureDocsClient(deps: Deps): Promise<string> {
  const ctx = withActor(deps, systemActor("seed"));
  const existing = (await listClients(ctx)).find((c) => c.name === DOCS_CLIENT_NAME);
  if (existing) return existing.clientId;
  const created = await createClient(ctx, {
    name: DOCS_CLIENT_NAME,
    isPublic: true,
    redirectUris: [
      "http://127.0.0.1/docs/static/oauth2-redirect.html",
      "http://[::1]/docs/static/oauth2-redirect.html",
    ],
  });
  return created.clientId;
}

/**
 * Mints a fresh key pair for the demo user under `appName` and revokes that app's earlier ones, so
 * restarts do not pile up live credentials. Only hashes are stored, so an earlier pair cannot be
 * printed again: replacing it is the only way to print a working one (docs/decisions/0087).
 */
export async function issueDemoCredentials(deps: Deps, appName = "npm start"): Promise<IssuedKeyPair> {
  const ctx = withActor(deps, systemActor("seed"));
  for (const earlier of await listKeyPairs(ctx, DEMO_USERNAME)) {
    if (earlier.appName === appName && earlier.revokedAt === null) await revokeKeyPair(ctx, earlier.id);
  }
  return createKeyPair(ctx, {
    user: DEMO_USERNAME,
    scopes: DEMO_SCOPES,
    environment: "demo",
    appName,
  });
}
