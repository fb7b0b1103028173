import closeWithGrace from "close-with-grace";
import { buildApp } from "../app.js";
import type { Config } from "../config.js";
import { API_VERSION } from "../http/openapi.js";
import { startRetention } from "../modules/maintenance/retention.js";
import { startMarket } from "../modules/market/quotes.js";
import { loadTriggers, persistTrailingStops } from "../modules/trading/triggers.js";
import { closeDeps, createDeps } from "../runtime.js";
import { DEMO_PASSWORD, DEMO_USERNAME, ensureDocsClient, issueDemoCredentials, seedDemoWorld } from "../seed/seed.js";
import type { Output } from "./output.js";

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
  let credentials: DemoCredentials | undefined;
  if (shouldSeed(config)) {
    const report = await seedDemoWorld(deps, (step) => deps.log.debug({ step }, "seeding"));
    if (report.created.length > 0) deps.log.info({ created: report.created }, "seeded the demo world");
    const issued = await issueDemoCredentials(deps);
    credentials = {
      apiKey: issued.apiKey,
      userKey: issued.userKey,
      username: DEMO_USERNAME,
      scopes: issued.scopes,
      password: DEMO_PASSWORD,
      docsClientId: await ensureDocsClient(deps),
    };
  }
  // The catalog is reference data: priced and ticking whatever the seed mode.
  await startMarket(deps);
  await loadTriggers(deps);
  const app = await buildApp(config, deps);
  const stopRetention = startRetention(deps);
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) deps.log.error({ err }, "shutting down after an error");
    else deps.log.info({ signal }, "shutting down: finishing requests in flight");
    await app.close();
    await stopRetention();
    // A restart resumes trailing stops from where they stand now.
    await persistTrailingStops(deps).catch((error) => deps.log.warn({ err: error }, "could not save trailing stops"));
    await closeDeps(deps);
  });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const baseUrl = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  out.result(
    {
      baseUrl,
      docsUrl: `${baseUrl}/docs`,
      openapiUrl: `${baseUrl}/openapi.json`,
      version: API_VERSION,
      demo: credentials ?? null,
    },
    () => banner(baseUrl, credentials),
  );
}

function banner(baseUrl: string, c: DemoCredentials | undefined): string {
  const lines = [
    "",
    `Social Trading API ${API_VERSION} is serving`,
    `  Base URL : ${baseUrl}`,
    `  Docs     : ${baseUrl}/docs`,
    `  OpenAPI  : ${baseUrl}/openapi.json`,
  ];
  if (c) {
    lines.push(
      "",
      `Demo user "${c.username}" (a fresh key pair is printed at every start):`,
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
