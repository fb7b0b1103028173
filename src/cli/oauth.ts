import { type Command, Option } from "commander";
import { AppError, invalid } from "../core/errors.js";
import type { Ctx, Deps } from "../modules/context.js";
import { passwordProblem } from "../modules/identity/passwords.js";
import { setPassword } from "../modules/identity/set-password.js";
import { createClient, listClients } from "../modules/oauth/clients.js";
import { cliIssuer } from "../modules/oauth/issuer.js";
import { mintAccessToken } from "../modules/oauth/mint-token.js";
import { listSigningKeys, reencryptSigningKeys, rotateSigningKey } from "../modules/oauth/signing-keys.js";
import type { Output } from "./output.js";

type WithStore = (cmd: Command, work: (ctx: Ctx, out: Output, deps: Deps) => Promise<void>) => Promise<void>;

/** Reads a password from --password or, better (no shell history, no `ps`), from stdin. */
export async function passwordFrom(options: {
  password?: string;
  passwordStdin?: boolean;
}): Promise<string | undefined> {
  if (options.password !== undefined && options.passwordStdin) {
    throw new AppError("ValidationFailed", "use --password or --password-stdin, not both");
  }
  if (!options.passwordStdin) return options.password;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** Fails before anything is written, so `users create --password` never leaves a half-made user. */
export function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw invalid("password", problem);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `apps`, `users set-password`, `tokens` and `signing-keys`: the OAuth side of the operator CLI. */
export function addOAuthCommands(program: Command, users: Command, withStore: WithStore): void {
  users
    .command("set-password")
    .description("set or replace a user's password (for the OAuth sign-in page)")
    .requiredOption("--user <user>", "username, id or gcid")
    .option("--password <password>", "the new password (at least 8 characters)")
    .option("--password-stdin", "read the password from standard input")
    .action(async (o: { user: string; password?: string; passwordStdin?: boolean }, cmd: Command) =>
      withStore(cmd, async (ctx, out) => {
        const password = await passwordFrom(o);
        if (password === undefined) throw new AppError("ValidationFailed", "give --password or --password-stdin");
        const result = await setPassword(ctx, o.user, password);
        out.result(result, () => `password set for ${result.username}`);
      }),
    );

  const apps = program.command("apps").description("manage OAuth 2.0 client applications");
  apps
    .command("create")
    .description("register an OAuth client; prints its client id (and secret, shown once, for a confidential one)")
    .requiredOption("--name <name>", "shown to users on the consent page")
    .requiredOption(
      "--redirect-uri <uri>",
      "where users come back with the code; repeat for several (https, http on loopback, or com.example.app:/cb)",
      collect,
    )
    .option("--public", "a public client (SPA, mobile, CLI): no secret, PKCE required")
    .addOption(new Option("--environment <env>", "demo or real").choices(["demo", "real"]).default("demo"))
    .action(async (o: { name: string; redirectUri: string[]; public?: boolean; environment: string }, cmd: Command) =>
      withStore(cmd, async (ctx, out, deps) => {
        const created = await createClient(ctx, {
          name: o.name,
          redirectUris: o.redirectUri,
          isPublic: Boolean(o.public),
          environment: o.environment,
        });
        const { issuer, source } = await cliIssuer(deps);
        out.result(
          {
            ...created,
            issuer,
            authorizationEndpoint: `${issuer}/oauth/authorize`,
            tokenEndpoint: `${issuer}/oauth/token`,
          },
          () =>
            [
              `${created.type} client "${created.name}"`,
              `client_id:     ${created.clientId}`,
              ...(created.clientSecret ? [`client_secret: ${created.clientSecret}   (shown once)`] : []),
              `redirect URIs: ${created.redirectUris.join(" ")}`,
              `issuer:        ${issuer}  (${source}; metadata at ${issuer}/.well-known/oauth-authorization-server)`,
            ].join("\n"),
        );
      }),
    );
  apps
    .command("list")
    .description("list OAuth clients (never their secrets)")
    .action(async (_o, cmd: Command) =>
      withStore(cmd, async (ctx, out) => {
        const list = await listClients(ctx);
        out.result(list, () =>
          list.length === 0
            ? "no clients"
            : list.map((c) => `${c.clientId}  ${c.type.padEnd(12)}  ${c.name}  ${c.redirectUris.join(" ")}`).join("\n"),
        );
      }),
    );

  const tokens = program.command("tokens").description("mint OAuth access tokens for scripts and the sandbox");
  tokens
    .command("create")
    .description("mint a bearer access token for a user, without the browser flow")
    .requiredOption("--user <user>", "username, id or gcid")
    .requiredOption("--scopes <scopes>", "comma-separated, with or without the prefix")
    .option("--ttl <seconds>", "lifetime in seconds, 60 to 86400 (default ACCESS_TOKEN_TTL)")
    .addOption(new Option("--environment <env>", "demo or real").choices(["demo", "real"]).default("demo"))
    .action(async (o: { user: string; scopes: string; ttl?: string; environment: string }, cmd: Command) =>
      withStore(cmd, async (ctx, out, deps) => {
        if (o.ttl !== undefined && !/^\d+$/.test(o.ttl)) {
          throw new AppError("ValidationFailed", `--ttl must be a whole number of seconds (got "${o.ttl}")`);
        }
        // The issuer the server checks: PUBLIC_URL, else the one it recorded when it started.
        const { issuer, source } = await cliIssuer(deps);
        const { grantId: _grant, ...minted } = await mintAccessToken(ctx, {
          user: o.user,
          scopes: [o.scopes],
          ttlSeconds: o.ttl === undefined ? undefined : Number(o.ttl),
          environment: o.environment,
          issuer,
        });
        out.result(minted, () =>
          [
            `Authorization: Bearer ${minted.access_token}`,
            `expires in ${minted.expires_in} s; scope: ${minted.scope}`,
            `issuer: ${issuer} (${source})`,
          ].join("\n"),
        );
      }),
    );

  const keys = program.command("signing-keys").description("the keys that sign OAuth access tokens");
  keys
    .command("list")
    .description("list signing keys (public information only)")
    .action(async (_o, cmd: Command) =>
      withStore(cmd, async (ctx, out) => {
        const list = await listSigningKeys(ctx);
        out.result(list, () =>
          list.length === 0
            ? "no signing key yet (one is made on first use)"
            : list.map((k) => `${k.kid}  ${k.alg}  ${k.status.padEnd(7)}  created ${k.createdAt}`).join("\n"),
        );
      }),
    );
  keys
    .command("rotate")
    .description("sign new tokens with a new key; earlier keys stay trusted for 24 h unless --drop-previous")
    .option("--drop-previous", "stop trusting earlier keys at once (a suspected leak): their tokens stop working")
    .action(async (o: { dropPrevious?: boolean }, cmd: Command) =>
      withStore(cmd, async (ctx, out) => {
        const key = await rotateSigningKey(ctx, { dropPrevious: Boolean(o.dropPrevious) });
        out.result(key, () => `signing with ${key.kid} from now on${o.dropPrevious ? "; earlier keys deleted" : ""}`);
      }),
    );
  keys
    .command("reencrypt")
    .description(
      "seal every signing private key under SECRETS_KEY, opening the others with SECRETS_KEY_PREVIOUS (a secrets key rotation)",
    )
    .action(async (_o, cmd: Command) =>
      withStore(cmd, async (ctx, out) => {
        const report = await reencryptSigningKeys(ctx, ({ kid, from }) =>
          out.progress(
            `re-encrypting signing key ${kid}: ${from === "plain" ? "stored plain" : `secrets key ${from}`} → ${ctx.secrets.keyId}`,
          ),
        );
        out.result(report, () => {
          const moved = report.reencrypted.length;
          const already = report.unchanged.length;
          return `re-encrypted ${moved} signing key${moved === 1 ? "" : "s"} under secrets key ${report.keyId}; ${already} already ${already === 1 ? "was" : "were"} under it${moved > 0 ? ". SECRETS_KEY_PREVIOUS is no longer needed by the signing keys." : ""}`;
        });
      }),
    );
}
