import { withPrefix } from "../../../core/scopes.js";
import { fromCents } from "../../trading/math.js";
import type { UserTokenRow } from "./agent-portfolios.repository.js";
import type { CreatedAgentPortfolio } from "./create-agent-portfolio.js";
import type { ListedAgentPortfolio } from "./list-agent-portfolios.js";
import { type IssuedToken, SCOPE_IDS } from "./user-tokens.js";

const scopesOf = (row: UserTokenRow) => JSON.parse(row.scopes) as string[];
const ipsOf = (row: UserTokenRow) => (row.ipsWhitelist ? (JSON.parse(row.ipsWhitelist) as string[]) : []);
const ID_OF = new Map(Object.entries(SCOPE_IDS).map(([id, scope]) => [scope, Number(id)]));

export function toCreatedPortfolio(created: CreatedAgentPortfolio, prefix: string, version: 1 | 2) {
  const p = created.portfolio;
  const base = {
    agentPortfolioId: p.id,
    agentPortfolioName: p.name,
    agentPortfolioGcid: created.gcid,
    agentPortfolioVirtualBalance: fromCents(p.virtualBalanceCents),
    mirrorId: p.mirrorId,
  };
  if (!created.token) {
    return {
      ...base,
      agentPortfolioVirtualBalance: Math.round(fromCents(p.virtualBalanceCents)),
      userTokenCreated: false,
    };
  }
  const { row, userToken } = created.token;
  void version;
  return {
    ...base,
    userTokens: [
      {
        userTokenId: row.id,
        userToken,
        userTokenName: row.name ?? "",
        clientId: clientIdOf(row),
        ipsWhitelist: ipsOf(row),
        scopes: scopesOf(row).map((s) => ({ name: withPrefix(s, prefix) })),
        ...(row.expiresAt ? { expiresAt: row.expiresAt } : {}),
      },
    ],
  };
}

/** The application the token is bound to: the id of the caller's key pair that made it. */
const clientIdOf = (row: UserTokenRow) => row.clientId ?? row.id;

export function toCreatedToken(issued: IssuedToken, prefix: string) {
  const { row, userToken } = issued;
  return {
    userTokenId: row.id,
    userToken,
    userTokenName: row.name ?? "",
    clientId: clientIdOf(row),
    ipsWhitelist: ipsOf(row),
    scopeNames: scopesOf(row).map((s) => withPrefix(s, prefix)),
    expiresAt: row.expiresAt ?? null,
    createdAt: row.createdAt,
  };
}

export function toPortfolioList(list: ListedAgentPortfolio[], prefix: string) {
  return {
    agentPortfolios: list.map(({ portfolio: p, gcid, tokens }) => ({
      agentPortfolioId: p.id,
      agentPortfolioName: p.name,
      agentPortfolioGcid: gcid,
      agentPortfolioVirtualBalance: fromCents(p.virtualBalanceCents),
      mirrorId: p.mirrorId,
      createdAt: p.createdAt,
      userTokens: tokens.map((t) => ({
        userTokenId: t.id,
        userTokenName: t.name ?? "",
        clientId: clientIdOf(t),
        externalApplicationName: t.appName,
        ipsWhitelist: ipsOf(t),
        ...(t.expiresAt ? { expiresAt: t.expiresAt } : {}),
        scopeIds: scopesOf(t).flatMap((s) => (ID_OF.has(s) ? [ID_OF.get(s)!] : [])),
        scopeNames: scopesOf(t).map((s) => withPrefix(s, prefix)),
        createdAt: t.createdAt,
      })),
    })),
  };
}
