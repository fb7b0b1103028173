import closeWithGrace from "close-with-grace";
import { type App, buildApp } from "../app.js";
import type { Config } from "../config.js";
import { systemActor } from "../core/actor.js";
import { API_VERSION } from "../http/openapi.js";
import { letYoungGenerationGrow } from "../infra/heap.js";
import { type Deps, withActor } from "../modules/context.js";
import { startRetention } from "../modules/maintenance/retention.js";
import { startMarket } from "../modules/market/quotes.js";
import { issuerFor, recordIssuer } from "../modules/oauth/issuer.js";
import { prepareSigningKeys } from "../modules/oauth/signing-keys.js";
import { startSnapshots } from "../modules/people/history/take-snapshots.js";
import { startSeededStrategies } from "../modules/people/strategies/seeded-strategies.js";
import { loadAlerts } from "../modules/price-alerts/alert-watch.js";
import { START_SNAPSHOT, saveSnapshot } from "../modules/sandbox/world.js";
import { loadEntryOrders } from "../modules/trading/entry-orders/entry-watch.js";
import { loadTriggers, persistTrailingStops } from "../modules/trading/triggers.js";
import { closeDeps, createDeps } from "../runtime.js";
import { DEMO_PASSWORD, DEMO_USERNAME, ensureDocsClient, issueDemoCredentials, seedDemoWorld } from "../seed/seed.js";
import type { Output } from "./output.js";
import { issueOperatorKey, type OperatorCredentials, operatorFile } from "./sandbox.js";

/** Seeding by default only for the embedded store: a shared PostgreSQL is seeded on purpose. */
export const shouldSeed = (config: Config) =>
  config.seed === "always" || (config.seed === "auto" && config.database.kind === "sqlite");

interface DemoCredentials {
  apiKey: string;
  userKey: string;
  username: string;
  scopes: string[];
  /** The seeded password (valid unless someone changed it with `users set-password`). */
  password: string;
  docsClientId: string;
}

export async function serve(config: Config, out: Output): Promise<void> {
  const deps = await createDeps(config);
  await checkSigningKeys(deps).catch(async (error) => {
    await closeDeps(deps);
    throw error;
  });
  const seeding = shouldSeed(config);
  let docsClientId: string | undefined;
  if (seeding) {
    const report = await seedDemoWorld(deps, (step) =>
      // The replayed history takes a moment: its progress is shown.
      step.startsWith("history") ? deps.log.info({ step }, "seeding") : deps.log.debug({ step }, "seeding"),
    );
    if (report.created.length > 0) deps.log.info({ created: report.created }, "seeded the demo world");
    docsClientId = await ensureDocsClient(deps);
  }
  // The catalog is reference data: priced and ticking whatever the seed mode.
  await startMarket(deps);
  await loadTriggers(deps);
  await loadEntryOrders(deps);
  await loadAlerts(deps);
  const app = await buildApp(config, deps);
  const stopRetention = startRetention(deps);
  const stopSnapshots = startSnapshots(deps);
  const stopStrategies = startSeededStrategies(deps);
  const stop = async () => {
    await app.close();
    await stopRetention();
    await stopSnapshots();
    await stopStrategies();
    // A restart resumes trailing stops from where they stand now.
    await persistTrailingStops(deps).catch((error) => deps.log.warn({ err: error }, "could not save trailing stops"));
    await closeDeps(deps);
  };
  try {
    await app.listen({ port: config.port, host: config.host });
    letYoungGenerationGrow();
  } catch (error) {
    await stop();
    throw listenError(config, error);
  }
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) deps.log.error({ err }, "shutting down after an error");
    else deps.log.info({ signal }, "shutting down: finishing requests in flight");
    await stop();
  });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  // What the CLI mints tokens for and prints in `apps create`, when PUBLIC_URL is not set there.
  await recordIssuer(deps, issuerFor(config, port));
  // Credentials only once the server really serves: a failed start leaves none behind.
  let credentials: DemoCredentials | undefined;
  let operator: OperatorCredentials | undefined;
  if (seeding) {
    const issued = await issueDemoCredentials(deps);
    credentials = {
      apiKey: issued.apiKey,
      userKey: issued.userKey,
      username: DEMO_USERNAME,
      scopes: issued.scopes,
      password: DEMO_PASSWORD,
      docsClientId: docsClientId as string,
    };
    if (deps.sandbox) {
      // The operator's key pair for the sandbox commands, then the world as it stands now, which a
      // world reset without a snapshot name restores, these credentials included (decision 0152).
      operator = await issueOperatorKey(deps);
      await saveSnapshot(withActor(deps, systemActor("serve")), START_SNAPSHOT);
    }
  }
  const sandbox = {
    enabled: config.sandbox.enabled,
    operator: operator ? { id: operator.id, apiKey: operator.apiKey, userKey: operator.userKey } : null,
    operatorFile: operator ? (operatorFile(config) ?? null) : null,
  };
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const baseUrl = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  out.result(
    {
      baseUrl,
      docsUrl: `${baseUrl}/docs`,
      dashboardUrl: `${baseUrl}/dashboard`,
      openapiUrl: `${baseUrl}/openapi.json`,
      realtimeUrl: realtimeUrl(baseUrl, app.realtimeAddress()),
      version: API_VERSION,
      rateLimitProfile: config.rateLimits.enabled ? config.rateLimits.profile : "off",
      demo: credentials ?? null,
      sandbox,
    },
    () =>
      banner(baseUrl, credentials, realtimeUrl(baseUrl, app.realtimeAddress()), rateLimitLine(config)) +
      sandboxBanner(sandbox),
  );
}

/**
 * Before serving: seals signing keys a store made before 0105 keeps plain, and refuses to start
 * (naming the secrets key id needed) when one cannot be opened, rather than failing every token.
 */
async function checkSigningKeys(deps: Deps): Promise<void> {
  const check = await prepareSigningKeys(withActor(deps, systemActor("serve")));
  if (check.sealed.length > 0) {
    deps.log.info(
      { kids: check.sealed, secretsKeyId: deps.secrets.keyId },
      `sealed ${check.sealed.length} OAuth signing key(s) stored plain under secrets key ${deps.secrets.keyId}`,
    );
  }
  if (check.underPrevious.length > 0) {
    deps.log.warn(
      { kids: check.underPrevious },
      `${check.underPrevious.length} OAuth signing key(s) are still sealed under the previous secrets key: run \`signing-keys reencrypt\`, then remove SECRETS_KEY_PREVIOUS`,
    );
  }
}

/** The reason a listen failed, in one line naming the setting to change. */
function listenError(config: Config, error: unknown): Error {
  const code = (error as { code?: string }).code;
  const where = `${config.host}:${config.port}`;
  if (code === "EADDRINUSE") {
    return new Error(`${where} is already in use by another program: stop it, or choose another port (--port or PORT)`);
  }
  if (code === "EACCES") {
    return new Error(
      `not allowed to listen on ${where}: ports below 1024 need privileges; choose another (--port or PORT)`,
    );
  }
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new Error(`cannot listen on ${where}: this machine has no such address (--host or HOST)`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** The real-time channel's URL: on REALTIME_PORT when it has its own, else on the API's port. */
function realtimeUrl(baseUrl: string, own: ReturnType<App["realtimeAddress"]>): string {
  const url = new URL(baseUrl);
  if (own && typeof own === "object") url.port = String(own.port);
  return `ws://${url.host}/ws`;
}

/** The rate-limit profile (RATE_LIMIT_PROFILE) and its write quota, or that limits are off. */
function rateLimitLine(config: Config): string {
  const { enabled, profile, pools } = config.rateLimits;
  if (!enabled) return "off (RATE_LIMITS_ENABLED=false)";
  const writes = pools.writes;
  return `${profile} (RATE_LIMIT_PROFILE; writes ${writes.max} per ${writes.windowSeconds} s)`;
}

function sandboxBanner(s: {
  enabled: boolean;
  operator: { apiKey: string; userKey: string } | null;
  operatorFile: string | null;
}): string {
  if (!s.enabled) return "\nSandbox controls: off (SANDBOX=off)\n";
  const lines = [
    "",
    "Sandbox controls: on at /sandbox/v1 (SANDBOX=off in production; README: deterministic test of your bot)",
  ];
  if (s.operator) {
    lines.push(
      `  operator x-api-key : ${s.operator.apiKey}`,
      `  operator x-user-key: ${s.operator.userKey}`,
      s.operatorFile ? `  saved in ${s.operatorFile} for \`social-trading-api sandbox …\`` : "",
    );
  } else lines.push("  make an operator key pair with `social-trading-api sandbox operator-key --user <user>`");
  return `${lines.filter(Boolean).join("\n")}\n`;
}

function banner(baseUrl: string, c: DemoCredentials | undefined, realtime: string, limits: string): string {
  const lines = [
    "",
    `Social Trading API ${API_VERSION} is serving`,
    `  Base URL : ${baseUrl}`,
    `  Docs     : ${baseUrl}/docs`,
    `  Dashboard: ${baseUrl}/dashboard${c ? ` (sign in as ${c.username} / ${c.password})` : ""}`,
    `  OpenAPI  : ${baseUrl}/openapi.json`,
    `  Real-time: ${realtime} (docs/realtime.md)`,
    `  Limits   : ${limits}`,
  ];
  if (c) {
    lines.push(
      "",
      `Demo user "${c.username}" (a new key pair at every start; the previous start's pair is revoked):`,
      `  x-api-key : ${c.apiKey}`,
      `  x-user-key: ${c.userKey}`,
      "",
      "Try it:",
      `  curl -H "x-request-id: $(cat /proc/sys/kernel/random/uuid)" \\`,
      `       -H "x-api-key: ${c.apiKey}" \\`,
      `       -H "x-user-key: ${c.userKey}" \\`,
      `       ${baseUrl}/api/v1/notifications/messages`,
      "",
      `OAuth 2.0: on ${baseUrl}/docs press "Authorize", use client id ${c.docsClientId} under oauth2,`,
      `  and sign in as ${c.username} / ${c.password}.`,
    );
  }
  return `${lines.join("\n")}\n`;
}
