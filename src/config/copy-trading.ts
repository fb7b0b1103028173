/** Copy trading (docs/decisions/0143–0147): COPY_* settings. */

import type { Pick } from "./shared.js";

export interface CopyTradingSettings {
  /** The fixed virtual balance an agent portfolio's own account is funded with, in cents. */
  agentVirtualBalanceCents: number;
  /** The least and most a caller may invest in one copy, in cents. */
  minInvestmentCents: number;
  maxInvestmentCents: number;
  /** User tokens one agent portfolio may hold at once. */
  maxUserTokens: number;
  /** Active copies (agent portfolios and people) one user may hold at once. */
  maxCopiesPerUser: number;
}

function usd(pick: Pick, name: string, fallback: string, problems: string[]): number {
  const text = pick(undefined, name) ?? fallback;
  if (!/^\d+(\.\d{1,2})?$/.test(text) || Number(text) <= 0 || Number(text) > 1e12) {
    problems.push(`${name} must be a positive USD amount with at most 2 decimals (got "${text}")`);
    return Math.round(Number(fallback) * 100);
  }
  return Math.round(Number(text) * 100);
}

function whole(pick: Pick, name: string, fallback: string, max: number, problems: string[]): number {
  const text = pick(undefined, name) ?? fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    problems.push(`${name} must be a whole number from 1 to ${max} (got "${text}")`);
    return Number(fallback);
  }
  return Number(text);
}

export function parseCopyTradingSettings(pick: Pick, problems: string[]): CopyTradingSettings {
  const settings = {
    agentVirtualBalanceCents: usd(pick, "COPY_AGENT_BALANCE", "10000", problems),
    minInvestmentCents: usd(pick, "COPY_MIN_INVESTMENT", "200", problems),
    maxInvestmentCents: usd(pick, "COPY_MAX_INVESTMENT", "2000000", problems),
    maxUserTokens: whole(pick, "COPY_MAX_USER_TOKENS", "10", 1000, problems),
    maxCopiesPerUser: whole(pick, "COPY_MAX_COPIES_PER_USER", "100", 10_000, problems),
  };
  if (settings.minInvestmentCents > settings.maxInvestmentCents) {
    problems.push("COPY_MIN_INVESTMENT must not be above COPY_MAX_INVESTMENT");
  }
  return settings;
}
