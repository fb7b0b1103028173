import type { Config } from "../../config.js";

/**
 * The issuer is PUBLIC_URL when set; otherwise the address the server listens on (so a server on
 * port 0 in a test names its real port) or, before listening (the CLI), http://HOST:PORT.
 */
export function issuerFor(config: Config, listeningPort?: number): string {
  if (config.oauth.publicUrl) return config.oauth.publicUrl;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const shown = host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${listeningPort ?? config.port}`;
}
