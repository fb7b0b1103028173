import { requireUser } from "../../../core/access.js";
import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { portfolioNotFound } from "../copy-trading.errors.js";
import { ACTIVE, mirrorsRepository, PAUSED, STOPPING } from "../mirrors/mirrors.repository.js";
import { finishStop } from "../mirrors/stop-mirror.js";
import { agentPortfoliosRepository } from "./agent-portfolios.repository.js";
import { AGENT_PORTFOLIO_WRITE, checkPortfolioId } from "./user-tokens.js";

/**
 * Deletes an agent portfolio: its user tokens revoked, its copy stopped and the portfolio gone in
 * one transaction; then the copy's open positions are closed at market and its cash (with its
 * realised P/L) returned to the caller's demo account. A crash between the two leaves a stopping
 * mirror the engine's sweep finishes.
 */
export async function deleteAgentPortfolio(ctx: Ctx, agentPortfolioId: string): Promise<void> {
  const caller = requireUser(ctx.actor, AGENT_PORTFOLIO_WRITE);
  checkPortfolioId(agentPortfolioId);
  const mirrorId = await transact(ctx, async (trx, record) => {
    const repo = agentPortfoliosRepository(trx);
    const portfolio = await repo.findOwned(caller.userId, agentPortfolioId);
    if (!portfolio) throw portfolioNotFound();
    const at = isoNow(ctx.clock);
    for (const token of await repo.tokensOf([portfolio.id])) {
      if (await repo.revokeToken(token.id, at)) {
        record({ type: "KeyPairRevoked", keyPairId: token.id, userId: token.userId, occurredAt: at });
      }
    }
    await mirrorsRepository(trx).setStatus(portfolio.mirrorId, [ACTIVE, PAUSED], STOPPING, at);
    await repo.remove(portfolio.id);
    return portfolio.mirrorId;
  });
  await finishStop(ctx, mirrorId);
}
