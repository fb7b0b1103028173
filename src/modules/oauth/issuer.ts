import type { Config } from "../../config.js";
import { isoNow } from "../../core/clock.js";
import type { Deps } from "../context.js";
import { oauthRepository } from "./oauth.repository.js";

/**
 * The issuer is PUBLIC_URL when set; otherwise the address the server listens on (so a server on
 * port 0 in a test names its real port) or, before listening, http://HOST:PORT.
 */
export function issuerFor(config: Config, listeningPort?: number): string {
  if (config.oauth.publicUrl) return config.oauth.publicUrl;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const shown = host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${listeningPort ?? config.port}`;
}

const ISSUER_SETTING = "issuer";

/** `serve`, once listening: the issuer it checks, for the CLI sharing its store (decision 0087). */
export async function recordIssuer(deps: Deps, issuer: string): Promise<void> {
  await oauthRepository(deps.db.kysely).putSetting(ISSUER_SETTING, issuer, isoNow(deps.clock));
}

export interface CliIssuer {
  issuer: string;
  /** Where it came from, for the operator: PUBLIC_URL, the last server start, or HOST:PORT. */
  source: "PUBLIC_URL" | "recorded by the server" | "HOST and PORT";
}

/**
 * The issuer of tokens the CLI mints and of what `apps create` prints: PUBLIC_URL when set (the
 * operator said so), else the one the last server started on this store recorded, else
 * http://HOST:PORT as configured (no server has started on this store yet).
 */
export async function cliIssuer(deps: Deps): Promise<CliIssuer> {
  if (deps.config.oauth.publicUrl) return { issuer: deps.config.oauth.publicUrl, source: "PUBLIC_URL" };
  const recorded = await oauthRepository(deps.db.kysely).findSetting(ISSUER_SETTING);
  if (recorded) return { issuer: recorded, source: "recorded by the server" };
  return { issuer: issuerFor(deps.config), source: "HOST and PORT" };
}
