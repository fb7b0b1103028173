import { randomBytes } from "node:crypto";
import { requireUser } from "../../../core/access.js";
import { isoNow } from "../../../core/clock.js";
import { newId } from "../../../core/ids.js";
import { type Ctx, transact } from "../../context.js";
import { demoCidOf } from "../../identity/identity.view.js";
import { usersDirectory } from "../../identity/user-ref.js";
import { demoLedger } from "../../trading/demo-ledger.js";
import { toCents } from "../../trading/math.js";
import { badRequest } from "../copy-trading.errors.js";
import { announceCopiers } from "../mirrors/announce-copiers.js";
import { startMirror } from "../mirrors/start-mirror.js";
import type { AgentPortfolioRow } from "./agent-portfolios.repository.js";
import { agentPortfoliosRepository } from "./agent-portfolios.repository.js";
import {
  AGENT_PORTFOLIO_WRITE,
  checkExpiry,
  checkIps,
  checkTokenName,
  type IssuedToken,
  issueToken,
  scopesOf,
  type TokenTerms,
} from "./user-tokens.js";

export interface CreateAgentPortfolioInput extends TokenTerms {
  investmentAmountInUsd: number;
  agentPortfolioName: string;
  agentPortfolioDescription?: string | undefined;
  userTokenName: string;
}

export interface CreatedAgentPortfolio {
  portfolio: AgentPortfolioRow;
  gcid: number;
  /** null: the portfolio was made but no token (207). */
  token: IssuedToken | null;
}

const NAME_RE = /^[A-Za-z0-9 _.-]{6,10}$/;

/**
 * An agent portfolio: a new account of its own (a user funded with the fixed virtual balance), a
 * copy of it by the caller with `investmentAmountInUsd` from the caller's demo cash, and a user
 * token of the agent's account bound to the caller's application key. All in one transaction but
 * the token: when it cannot be made (no scopes named on v1, a caller without an application key)
 * the portfolio stands and the answer is 207 (decision 0143).
 */
export async function createAgentPortfolio(
  ctx: Ctx,
  input: CreateAgentPortfolioInput,
  version: 1 | 2,
): Promise<CreatedAgentPortfolio> {
  const caller = requireUser(ctx.actor, AGENT_PORTFOLIO_WRITE);
  const settings = ctx.config.copyTrading;
  const name = input.agentPortfolioName.trim();
  if (!NAME_RE.test(name)) {
    throw badRequest("ValidationFailed", "Agent-portfolio name must be between 6 and 10 characters");
  }
  const cents = toCents(input.investmentAmountInUsd);
  if (cents === null) throw badRequest("ValidationFailed", "Investment amount must be USD with at most 2 decimals");
  if (cents < settings.minInvestmentCents) {
    throw badRequest("ValidationFailed", "Investment amount is below the minimum threshold");
  }
  if (cents > settings.maxInvestmentCents) {
    throw badRequest("ValidationFailed", "Investment amount is above the maximum threshold");
  }
  const description = input.agentPortfolioDescription?.trim() || null;
  if (description && description.length > 500) {
    throw badRequest("ValidationFailed", "agentPortfolioDescription must be at most 500 characters");
  }
  if (version === 2 && (input.scopeNames?.length ?? 0) === 0) {
    throw badRequest("ScopeIdsRequired", "ScopeNames is required");
  }
  const scopes = scopesOf(input, ctx.config.scopePrefix, 400);
  checkIps(input.ipsWhitelist);
  const expiresAt = checkExpiry(ctx, input.expiresAt);
  const tokenName = checkTokenName(input.userTokenName);

  const created = await transact(ctx, async (trx) => {
    const repo = agentPortfoliosRepository(trx);
    if (await repo.nameTaken(caller.userId, name.toLowerCase())) {
      throw badRequest("ValidationFailed", `An agent-portfolio named "${name}" already exists`);
    }
    const now = isoNow(ctx.clock);
    // The agent's account is a user of its own, private (found through its portfolio, not by search).
    const username = `agent-${randomBytes(5).toString("hex")}`;
    const agent = await usersDirectory(trx).insertUser({
      id: newId(),
      username,
      usernameLower: username,
      firstName: name,
      middleName: null,
      lastName: null,
      playerLevel: 1,
      gender: 0,
      language: 1,
      dateOfBirth: "",
      lei: null,
      countryCode: 0,
      piLevel: 0,
      isPrivate: 1,
      passwordHash: null,
      createdAt: now,
    });
    const balance = settings.agentVirtualBalanceCents;
    await demoLedger(trx).createAccountIfMissing({
      userId: agent.id,
      cid: demoCidOf(agent.gcid),
      cashCents: balance,
      startingCents: balance,
      realizedPnlCents: 0,
      createdAt: now,
      updatedAt: now,
    });
    const id = newId();
    const mirrorId = await startMirror(ctx, trx, caller, {
      parentUserId: agent.id,
      investmentCents: cents,
      stopLossCents: 0,
      agentPortfolioId: id,
    });
    if (mirrorId === "InsufficientCash") {
      throw badRequest("ValidationFailed", "Investment amount is above the available cash of the caller's account");
    }
    if (mirrorId === "TooManyCopies") {
      throw badRequest("ValidationFailed", `At most ${settings.maxCopiesPerUser} copies may be active at once`);
    }
    const portfolio: AgentPortfolioRow = {
      id,
      ownerUserId: caller.userId,
      agentUserId: agent.id,
      name,
      nameLower: name.toLowerCase(),
      description,
      virtualBalanceCents: balance,
      mirrorId,
      createdAt: now,
    };
    await repo.insert(portfolio);
    const token = scopes
      ? await issueToken(ctx, trx, caller, portfolio, {
          name: tokenName,
          scopes,
          ipsWhitelist: input.ipsWhitelist ?? [],
          expiresAt,
        })
      : null;
    return { portfolio, gcid: agent.gcid, token };
  });
  await announceCopiers(ctx, created.portfolio.agentUserId);
  return created;
}
