/** The sandbox control API (docs/decisions/0148): SANDBOX. */

import type { Pick } from "./shared.js";

export interface SandboxSettings {
  /**
   * Whether `/sandbox/v1/…` exists at all (off: every sandbox path is a 404, the clock is the
   * system's and no fault is ever injected). On by default, off by default when NODE_ENV=production.
   */
  enabled: boolean;
}

export function parseSandboxSettings(pick: Pick, production: boolean, problems: string[]): SandboxSettings {
  const text = (pick(undefined, "SANDBOX") ?? (production ? "off" : "on")).toLowerCase();
  if (text !== "on" && text !== "off") problems.push(`SANDBOX must be on or off (got "${text}")`);
  return { enabled: text === "on" };
}
