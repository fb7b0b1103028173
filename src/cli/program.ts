import { Command, Option } from "commander";
import { type Config, ConfigError, type ConfigFlags, loadConfig, redactUrl } from "../config.js";
import { systemActor } from "../core/actor.js";
import { AppError } from "../core/errors.js";
import { SecretsError } from "../core/secrets.js";
import { DatabaseUnavailableError } from "../infra/db/database.js";
import { migrateToLatest } from "../infra/db/migrate.js";
import { type Ctx, type Deps, withActor } from "../modules/context.js";
import { createUser } from "../modules/identity/create-user.js";
import { toUserSummary } from "../modules/identity/identity.view.js";
import { createKeyPair, listKeyPairs, revokeKeyPair } from "../modules/identity/key-pairs.js";
import { setPassword } from "../modules/identity/set-password.js";
import { closeDeps, createDeps } from "../runtime.js";
import { seedDemoWorld } from "../seed/seed.js";
import { addAuditCommands } from "./audit.js";
import { addOAuthCommands, checkPassword, passwordFrom } from "./oauth.js";
import { makeOutput, type Output } from "./output.js";
import { addSandboxCommands } from "./sandbox.js";
import { serve } from "./serve.js";

interface GlobalOptions {
  database?: string;
  json?: boolean;
}

const program = new Command("social-trading-api")
  .description("Social Trading, Demo Order and Watchlist public API v1: server and operator CLI")
  .option(
    "--database <path|url>",
    "SQLite file or postgres:// URL (env DATABASE_URL; default ./data/social-trading.db)",
  )
  .option("--json", "print machine-readable JSON on stdout")
  .showHelpAfterError()
  .addHelpText(
    "after",
    "\nEnvironment (the README's Configuration table explains each; flags win over the environment):\n" +
      "  server    PORT, HOST, LOG_LEVEL, BODY_LIMIT, CORS_ORIGINS, SEED, SCOPE_PREFIX, AUTH_CACHE_TTL_MS\n" +
      "  storage   DATABASE_URL, DATABASE_QUERY_TIMEOUT_MS, SQLITE_SYNCHRONOUS, SQLITE_GROUP_COMMIT, REDIS_URL, REDIS_NAMESPACE\n" +
      "  secrets   NODE_ENV, SECRETS_KEY, SECRETS_KEY_FILE, SECRETS_KEY_PREVIOUS, SECRETS_KEY_PREVIOUS_FILE\n" +
      "  limits    RATE_LIMITS_ENABLED, RATE_LIMIT_PROFILE, RATE_LIMIT_<POOL>, TRUST_PROXY\n" +
      "  oauth     PUBLIC_URL, OAUTH_AUDIENCE, ACCESS_TOKEN_TTL, REFRESH_TOKEN_TTL, OAUTH_JWKS_URL, OAUTH_EXTERNAL_ISSUER\n" +
      "  sign-in   SIGNIN_FREE_FAILURES, SIGNIN_WINDOW_MINUTES, SIGNIN_MAX_DELAY_SECONDS, SIGNIN_DEVICE_DAYS\n" +
      "  trading   DEMO_BALANCE, IDEMPOTENCY_TTL_HOURS, PRICE_ALERTS_MAX_PER_USER, MARKET_SEED, MARKET_TICK_MS,\n" +
      "            MARKET_VOLATILITY, MARKET_SPREAD_BPS, MARKET_LEASE_KEY, MARKET_HOURS\n" +
      "  copy      COPY_AGENT_BALANCE, COPY_MIN_INVESTMENT, COPY_MAX_INVESTMENT, COPY_MAX_USER_TOKENS,\n" +
      "            COPY_MAX_COPIES_PER_USER\n" +
      "  lists     WATCHLIST_MAX_WATCHLISTS, WATCHLIST_MAX_ITEMS\n" +
      "  people    PEOPLE_SNAPSHOT_EVERY_MS, PEOPLE_SEED_HISTORY_DAYS, PEOPLE_SEEDED_TRADING_EVERY_SECONDS\n" +
      "  social    READ_CACHE_MB, READ_CACHE_MAX_AGE_MS, CLUBS_FILE, MEDIA_DIR, MEDIA_S3_BUCKET,\n" +
      "            MEDIA_S3_ENDPOINT, MEDIA_S3_REGION, MEDIA_S3_ACCESS_KEY_ID, MEDIA_S3_SECRET_ACCESS_KEY, MEDIA_S3_PREFIX\n" +
      "  realtime  REALTIME_PORT, REALTIME_MAX_CONNECTIONS_PER_USER, REALTIME_RATE_LIMIT, REALTIME_KEEPALIVE_MS,\n" +
      "            REALTIME_BUFFER_BYTES, REALTIME_MAX_QUEUED_EVENTS, REALTIME_AUTH_TIMEOUT_SECONDS,\n" +
      "            REALTIME_MAX_UNAUTHENTICATED\n" +
      "  security  AUDIT_RETENTION_DAYS\n" +
      "  metrics   METRICS, METRICS_TOKEN\n" +
      "  sandbox   SANDBOX (on; off when NODE_ENV=production), SANDBOX_URL, SANDBOX_API_KEY, SANDBOX_USER_KEY",
  );

const globals = (cmd: Command) => cmd.optsWithGlobals<GlobalOptions & ConfigFlags>();

/** Opens the store as a command's system actor, runs `work`, always closes it. */
async function withStore(cmd: Command, work: (ctx: Ctx, out: Output, deps: Deps) => Promise<void>, migrate = true) {
  const opts = globals(cmd);
  const out = makeOutput(Boolean(opts.json));
  const config = loadConfig(undefined, { database: opts.database }, { logLevel: "warn" });
  const deps = await createDeps(config, { migrate });
  try {
    await work(withActor(deps, systemActor("cli")), out, deps);
  } finally {
    await closeDeps(deps);
  }
}

program
  .command("serve")
  .description("serve the API (migrates, and seeds the demo world on the embedded store)")
  .option("--port <port>", "port to listen on (env PORT; default 8080)")
  .option("--host <host>", "address to bind (env HOST; default 127.0.0.1)")
  .addOption(
    new Option("--seed <mode>", "seed the demo world (env SEED; auto = only on SQLite)").choices([
      "auto",
      "always",
      "never",
    ]),
  )
  .action(async (_o, cmd: Command) => {
    const opts = globals(cmd);
    const config: Config = loadConfig(undefined, opts);
    await serve(config, makeOutput(Boolean(opts.json)));
  });

program
  .command("migrate")
  .description("apply pending database migrations")
  .action(async (_o, cmd: Command) =>
    withStore(
      cmd,
      async (_ctx, out, deps) => {
        const report = await migrateToLatest(deps.db);
        out.result({ database: redactUrl(deps.config.database.url), applied: report.applied }, () =>
          report.applied.length ? `applied: ${report.applied.join(", ")}` : "the schema is up to date",
        );
      },
      false,
    ),
  );

program
  .command("seed")
  .description("create the demo world (users, notifications); safe to run again")
  .action(async (_o, cmd: Command) =>
    withStore(cmd, async (_ctx, out, deps) => {
      const report = await seedDemoWorld(deps, (step) => out.progress(`seeding ${step}`));
      out.result(report.created.length ? { created: report.created } : { created: [] }, () =>
        report.created.length ? `seeded: ${report.created.join(", ")}` : "the demo world was already there",
      );
    }),
  );

const users = program.command("users").description("manage users");
users
  .command("create")
  .description("create a user")
  .requiredOption("--username <username>", "3 to 32 letters, digits, '.', '_' or '-'")
  .option("--first-name <name>")
  .option("--last-name <name>")
  .option("--password <password>", "lets the user sign in on the OAuth page (at least 8 characters)")
  .option("--password-stdin", "read the password from standard input")
  .action(
    async (
      o: { username: string; firstName?: string; lastName?: string; password?: string; passwordStdin?: boolean },
      cmd: Command,
    ) =>
      withStore(cmd, async (ctx, out) => {
        const password = await passwordFrom(o);
        if (password !== undefined) checkPassword(password);
        const user = toUserSummary(await createUser(ctx, o));
        if (password !== undefined) await setPassword(ctx, user.id, password);
        out.result(user, () => `created user ${user.username}: id ${user.id}, gcid ${user.gcid}`);
      }),
  );
addOAuthCommands(program, users, withStore);
addAuditCommands(program, withStore);
addSandboxCommands(program, withStore);

const keys = program.command("keys").description("manage x-api-key / x-user-key pairs");
keys
  .command("create")
  .description("issue a key pair for a user; the secrets are shown once")
  .requiredOption("--user <user>", "username, id or gcid")
  .requiredOption(
    "--scopes <scopes>",
    "comma-separated, with or without the prefix (feed:read or service-public:feed:read)",
  )
  .addOption(new Option("--environment <env>", "demo or real").choices(["demo", "real"]).default("demo"))
  .option("--app <name>", "name of the application the pair is for", "sandbox")
  .action(async (o: { user: string; scopes: string; environment: string; app: string }, cmd: Command) =>
    withStore(cmd, async (ctx, out) => {
      const issued = await createKeyPair(ctx, {
        user: o.user,
        scopes: [o.scopes],
        environment: o.environment,
        appName: o.app,
      });
      const { apiKey, userKey, scopes, id, environment } = issued;
      out.result({ apiKey, userKey, scopes, id, environment, user: issued.username }, () =>
        [
          `key pair ${id} for ${issued.username} (${environment})`,
          `x-api-key:  ${apiKey}`,
          `x-user-key: ${userKey}`,
          `scopes: ${scopes.join(" ")}`,
        ].join("\n"),
      );
    }),
  );
keys
  .command("list")
  .description("list a user's key pairs (never their secrets)")
  .requiredOption("--user <user>", "username, id or gcid")
  .action(async (o: { user: string }, cmd: Command) =>
    withStore(cmd, async (ctx, out) => {
      const list = await listKeyPairs(ctx, o.user);
      out.result(list, () =>
        list.length === 0
          ? "no key pairs"
          : list
              .map(
                (k) =>
                  `${k.id}  ${k.environment}  ${k.revokedAt ? "revoked" : "active "}  ${k.appName}  ${k.scopes.join(",")}`,
              )
              .join("\n"),
      );
    }),
  );
keys
  .command("revoke")
  .description("revoke a key pair; it stops working at once")
  .argument("<id>", "the key pair id")
  .action(async (id: string, _o, cmd: Command) =>
    withStore(cmd, async (ctx, out) => {
      const key = await revokeKeyPair(ctx, id);
      out.result(key, () => `revoked ${key.id}`);
    }),
  );

function fail(error: unknown): never {
  const json = process.argv.includes("--json");
  const message =
    error instanceof ConfigError
      ? error.message
      : error instanceof AppError
        ? error.message
        : error instanceof Error
          ? error.message
          : String(error);
  const code =
    error instanceof AppError || error instanceof DatabaseUnavailableError
      ? error.code
      : error instanceof ConfigError
        ? "InvalidConfiguration"
        : error instanceof SecretsError
          ? error.reason === "unknown-key"
            ? "SecretsKeyUnavailable"
            : "SecretsUnreadable"
          : "GeneralError";
  if (json)
    process.stdout.write(
      `${JSON.stringify({ error: { code, message, ...(error instanceof ConfigError ? { problems: error.problems } : {}) } })}\n`,
    );
  process.stderr.write(`error: ${message}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}

program.parseAsync(process.argv).catch(fail);
