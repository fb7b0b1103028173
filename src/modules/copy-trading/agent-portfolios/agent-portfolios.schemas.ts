import { Type } from "typebox";

/** Request numbers are bounded (decision 0100); the use cases answer the business limits in upstream's codes. */
const MAGNITUDE = 1e9;
const ScopeId = () => Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });

const ScopeName = Type.Object({ name: Type.String() });
const IPS = Type.Array(Type.String(), { description: "IPv4 addresses the token may be used from; none = any" });
const EXPIRES = Type.String({ description: "When the token stops working (UTC date-time)" });

const common = {
  investmentAmountInUsd: Type.Number({
    minimum: -MAGNITUDE,
    maximum: MAGNITUDE,
    description:
      "USD taken from the CALLER's demo cash to copy the agent portfolio (not its own balance): positions " +
      "are mirrored at investment ÷ agentPortfolioVirtualBalance of their size",
  }),
  agentPortfolioName: Type.String({ description: "6 to 10 characters, unique among the caller's portfolios" }),
  agentPortfolioDescription: Type.Optional(Type.String()),
  userTokenName: Type.String(),
  ipsWhitelist: Type.Optional(IPS),
  expiresAt: Type.Optional(EXPIRES),
};

export const CreateAgentPortfolioBody = Type.Object({
  ...common,
  scopeIds: Type.Optional(
    Type.Array(ScopeId(), {
      deprecated: true,
      description: "200 = real:read, 201 = demo:read, 202 = real:write, 203 = demo:write",
    }),
  ),
  scopeNames: Type.Optional(Type.Array(Type.String())),
});
export const CreateAgentPortfolioV2Body = Type.Object({ ...common, scopeNames: Type.Array(Type.String()) });

const portfolioFields = {
  agentPortfolioId: Type.String({ format: "uuid" }),
  agentPortfolioName: Type.String(),
  agentPortfolioGcid: Type.Integer(),
  agentPortfolioVirtualBalance: Type.Number(),
  mirrorId: Type.Integer(),
};

const CreatedToken = Type.Object({
  userTokenId: Type.String({ format: "uuid" }),
  userToken: Type.String({ description: "The secret; shown only here" }),
  userTokenName: Type.String(),
  clientId: Type.String({ format: "uuid" }),
  ipsWhitelist: Type.Array(Type.String()),
  scopes: Type.Array(ScopeName),
  expiresAt: Type.Optional(Type.String({ format: "date-time" })),
});

export const CreateAgentPortfolioResponse = Type.Object({ ...portfolioFields, userTokens: Type.Array(CreatedToken) });
export const CreateAgentPortfolioPartialResponse = Type.Object({
  ...portfolioFields,
  agentPortfolioVirtualBalance: Type.Integer(),
  userTokenCreated: Type.Boolean(),
});

export const AgentPortfolioUserTokenItem = Type.Object({
  userTokenId: Type.String({ format: "uuid" }),
  userTokenName: Type.String(),
  clientId: Type.String({ format: "uuid" }),
  externalApplicationName: Type.String(),
  ipsWhitelist: Type.Array(Type.String()),
  expiresAt: Type.Optional(Type.String({ format: "date-time" })),
  scopeIds: Type.Array(Type.Integer()),
  scopeNames: Type.Array(Type.String()),
  createdAt: Type.String({ format: "date-time" }),
});

export const GetAgentPortfoliosResponse = Type.Object({
  agentPortfolios: Type.Array(
    Type.Object({
      ...portfolioFields,
      createdAt: Type.String({ format: "date-time" }),
      userTokens: Type.Array(AgentPortfolioUserTokenItem),
    }),
  ),
});

export const CreateUserTokenBody = Type.Object({
  userTokenName: Type.String(),
  scopeIds: Type.Optional(Type.Array(ScopeId(), { deprecated: true })),
  scopeNames: Type.Optional(Type.Array(Type.String())),
  ipsWhitelist: Type.Optional(IPS),
  expiresAt: Type.Optional(EXPIRES),
});
export const CreateUserTokenV2Body = Type.Object({
  userTokenName: Type.String(),
  scopeNames: Type.Array(Type.String()),
  ipsWhitelist: Type.Optional(IPS),
  expiresAt: Type.Optional(EXPIRES),
});
export const UpdateUserTokenBody = Type.Object({
  scopeIds: Type.Optional(Type.Array(ScopeId(), { deprecated: true })),
  scopeNames: Type.Optional(Type.Array(Type.String())),
  ipsWhitelist: Type.Optional(IPS),
  expiresAt: Type.Optional(EXPIRES),
});
export const UpdateUserTokenV2Body = Type.Object({
  scopeNames: Type.Optional(Type.Array(Type.String())),
  ipsWhitelist: Type.Optional(IPS),
  expiresAt: Type.Optional(EXPIRES),
});

export const CreateUserTokenResponse = Type.Object({
  userTokenId: Type.String({ format: "uuid" }),
  userToken: Type.String(),
  userTokenName: Type.String(),
  clientId: Type.String({ format: "uuid" }),
  ipsWhitelist: Type.Array(Type.String()),
  scopeNames: Type.Array(Type.String()),
  expiresAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  createdAt: Type.String({ format: "date-time" }),
});

export const GetAllowedScopesResponse = Type.Object({ scopes: Type.Array(ScopeName) });

/** Path ids are checked by the use case: upstream answers a malformed one with 400 ValidationFailed. */
export const PortfolioParams = Type.Object({ agentPortfolioId: Type.String({ maxLength: 64 }) });
export const TokenParams = Type.Object({
  agentPortfolioId: Type.String({ maxLength: 64 }),
  userTokenId: Type.String({ maxLength: 64 }),
});
