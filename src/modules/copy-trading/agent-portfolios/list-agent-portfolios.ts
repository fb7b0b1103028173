import { requireUser } from "../../../core/access.js";
import type { Ctx } from "../../context.js";
import { type AgentPortfolioRow, agentPortfoliosRepository, type UserTokenRow } from "./agent-portfolios.repository.js";
import { AGENT_PORTFOLIO_READ } from "./user-tokens.js";

export interface ListedAgentPortfolio {
  portfolio: AgentPortfolioRow;
  gcid: number;
  tokens: UserTokenRow[];
}

/** The caller's agent portfolios, oldest first, each with its live user tokens. */
export async function listAgentPortfolios(ctx: Ctx): Promise<ListedAgentPortfolio[]> {
  const caller = requireUser(ctx.actor, AGENT_PORTFOLIO_READ);
  const db = ctx.db.kysely;
  const repo = agentPortfoliosRepository(db);
  const portfolios = await repo.listOf(caller.userId);
  if (portfolios.length === 0) return [];
  const tokens = await repo.tokensOf(portfolios.map((p) => p.id));
  const agents = await db
    .selectFrom("users")
    .select(["id", "gcid"])
    .where(
      "id",
      "in",
      portfolios.map((p) => p.agentUserId),
    )
    .execute();
  const gcids = new Map(agents.map((a) => [a.id, a.gcid]));
  return portfolios.map((portfolio) => ({
    portfolio,
    gcid: gcids.get(portfolio.agentUserId) ?? 0,
    tokens: tokens.filter((t) => t.agentPortfolioId === portfolio.id),
  }));
}
