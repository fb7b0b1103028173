/** The Prometheus endpoint (docs/decisions/0106): METRICS and METRICS_TOKEN. */

import type { Pick } from "./shared.js";

export interface MetricsSettings {
  /** Whether `GET /metrics` is served (and the per-request hooks attached). Off by default. */
  enabled: boolean;
  /** The bearer token a scraper must send; always set when `enabled`. */
  token: string | undefined;
}

/** Visible ASCII without spaces: it travels in an Authorization header. */
const TOKEN = /^[\x21-\x7e]{16,512}$/;

export function parseMetricsSettings(pick: Pick, problems: string[]): MetricsSettings {
  const mode = (pick(undefined, "METRICS") ?? "off").toLowerCase();
  if (mode !== "on" && mode !== "off") problems.push(`METRICS must be on or off (got "${mode}")`);
  const token = pick(undefined, "METRICS_TOKEN");
  // The token itself is never printed: only its length.
  if (token !== undefined && !TOKEN.test(token)) {
    problems.push(
      `METRICS_TOKEN must be 16 to 512 visible ASCII characters without spaces, e.g. the output of "openssl rand -hex 32" (got ${token.length} characters)`,
    );
  } else if (mode === "on" && token === undefined) {
    problems.push(
      "METRICS=on needs METRICS_TOKEN, the bearer token a scraper must send to /metrics (16 characters or more)",
    );
  }
  return { enabled: mode === "on", token };
}
