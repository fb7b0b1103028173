/** The sandbox control API (docs/decisions/0148): SANDBOX; the CLI's SANDBOX_URL, SANDBOX_API_KEY, SANDBOX_USER_KEY. */

import type { Pick } from "./shared.js";

export interface SandboxSettings {
  /**
   * Whether `/sandbox/v1/…` exists at all (off: every sandbox path is a 404, the clock is the
   * system's and no fault is ever injected). On by default, off by default when NODE_ENV=production.
   */
  enabled: boolean;
  /** Where the `sandbox` CLI commands send controls, and with which operator key pair (else the operator file). */
  client: { url: string | undefined; apiKey: string | undefined; userKey: string | undefined };
}

export function parseSandboxSettings(pick: Pick, production: boolean, problems: string[]): SandboxSettings {
  const text = (pick(undefined, "SANDBOX") ?? (production ? "off" : "on")).toLowerCase();
  if (text !== "on" && text !== "off") problems.push(`SANDBOX must be on or off (got "${text}")`);
  const url = pick(undefined, "SANDBOX_URL");
  if (url !== undefined && !/^https?:\/\/[^\s]+$/i.test(url)) {
    problems.push(`SANDBOX_URL must be an http:// or https:// URL (got "${url}")`);
  }
  return {
    enabled: text === "on",
    client: { url, apiKey: pick(undefined, "SANDBOX_API_KEY"), userKey: pick(undefined, "SANDBOX_USER_KEY") },
  };
}
