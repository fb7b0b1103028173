import { type Access, api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { errorResponse, NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { answering } from "../upstream-errors.routes.js";
import {
  CreateAgentPortfolioBody,
  CreateAgentPortfolioPartialResponse,
  CreateAgentPortfolioResponse,
  CreateAgentPortfolioV2Body,
  CreateUserTokenBody,
  CreateUserTokenResponse,
  CreateUserTokenV2Body,
  GetAgentPortfoliosResponse,
  GetAllowedScopesResponse,
  PortfolioParams,
  TokenParams,
  UpdateUserTokenBody,
  UpdateUserTokenV2Body,
} from "./agent-portfolios.schemas.js";
import { toCreatedPortfolio, toCreatedToken, toPortfolioList } from "./agent-portfolios.view.js";
import { createAgentPortfolio } from "./create-agent-portfolio.js";
import { deleteAgentPortfolio } from "./delete-agent-portfolio.js";
import { listAgentPortfolios } from "./list-agent-portfolios.js";
import {
  AGENT_PORTFOLIO_READ,
  AGENT_PORTFOLIO_WRITE,
  allowedScopes,
  createUserToken,
  deleteUserToken,
  updateUserToken,
} from "./user-tokens.js";

const TAGS = ["Agent Portfolios"];
const read: Access = { scopes: AGENT_PORTFOLIO_READ, requestIdRequired: true };
const write: Access = { scopes: AGENT_PORTFOLIO_WRITE, requestIdRequired: true };

const BAD = (what: string) => errorResponse(400, what);
const NOT_FOUND = errorResponse(404, "The agent portfolio (or user token) does not exist or is not the caller's");
const NAME_TAKEN = errorResponse(409, "UserKeyNameAlreadyExists: the portfolio has a token of that name");
const CREATE_DESCRIPTION =
  "Creates an agent portfolio: an account of its own funded with a fixed virtual balance " +
  "(COPY_AGENT_BALANCE, agentPortfolioVirtualBalance), copied by the caller with `investmentAmountInUsd` taken " +
  "from the caller's demo cash (positions mirrored at investment ÷ virtual balance), and a user token of the " +
  "agent's account bound to the caller's application key. 207 when the portfolio is made but the token is not " +
  "(no scopes named, or a caller without an application key). Errors: 400 ValidationFailed (name 6–10 characters, " +
  "investment below COPY_MIN_INVESTMENT, above COPY_MAX_INVESTMENT or the caller's cash), IpsWhitelistInvalidIp.";

export function registerAgentPortfolioRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;

  app.route({
    method: "GET",
    url: "/api/v1/agent-portfolios",
    ...api(
      read,
      {
        operationId: "getAgentPortfolios",
        tags: TAGS,
        summary: "The caller's agent portfolios with their user tokens",
        response: { 200: GetAgentPortfoliosResponse },
      },
      prefix,
    ),
    handler: async (request) => toPortfolioList(await listAgentPortfolios(withActor(deps, request.actor)), prefix),
  });

  app.route({
    method: "POST",
    url: "/api/v1/agent-portfolios",
    ...api(
      write,
      {
        operationId: "createAgentPortfolio",
        tags: TAGS,
        summary: "Create an agent portfolio (scope ids; deprecated)",
        description: `${CREATE_DESCRIPTION} v1 names the token's scopes by id (200–203) or by name.`,
        deprecated: true,
        body: CreateAgentPortfolioBody,
        response: {
          201: CreateAgentPortfolioResponse,
          207: CreateAgentPortfolioPartialResponse,
          400: BAD("ValidationFailed, ScopeIdNotAllowed, ScopeNameNotAllowed or IpsWhitelistInvalidIp"),
          409: NAME_TAKEN,
        },
      },
      prefix,
    ),
    handler: (request, reply) =>
      answering(request, reply, async () => {
        const created = await createAgentPortfolio(withActor(deps, request.actor), request.body, 1);
        return reply.status(created.token ? 201 : 207).send(toCreatedPortfolio(created, prefix, 1));
      }),
  });

  app.route({
    method: "POST",
    url: "/api/v2/agent-portfolios",
    ...api(
      write,
      {
        operationId: "createAgentPortfolioV2",
        tags: TAGS,
        summary: "Create an agent portfolio (scope names)",
        description: `${CREATE_DESCRIPTION} v2 names the token's scopes by name (see the allowed scopes); another name is 400 ScopeNameNotAllowed.`,
        body: CreateAgentPortfolioV2Body,
        response: {
          201: CreateAgentPortfolioResponse,
          207: CreateAgentPortfolioPartialResponse,
          400: BAD("ValidationFailed, ScopeNameNotAllowed or IpsWhitelistInvalidIp"),
          409: NAME_TAKEN,
        },
      },
      prefix,
    ),
    handler: (request, reply) =>
      answering(request, reply, async () => {
        const created = await createAgentPortfolio(withActor(deps, request.actor), request.body, 2);
        return reply.status(created.token ? 201 : 207).send(toCreatedPortfolio(created, prefix, 2));
      }),
  });

  app.route({
    method: "DELETE",
    url: "/api/v1/agent-portfolios/:agentPortfolioId",
    ...api(
      write,
      {
        operationId: "deleteAgentPortfolio",
        tags: TAGS,
        summary: "Delete an agent portfolio",
        description:
          "Revokes its user tokens, stops the caller's copy of it, closes the copy's positions at market and " +
          "returns the copy's money (with its realised P/L) to the caller's demo cash.",
        params: PortfolioParams,
        response: { 204: NoContent, 400: BAD("ValidationFailed: not an id"), 404: NOT_FOUND },
      },
      prefix,
    ),
    handler: (request, reply) =>
      answering(request, reply, async () => {
        await deleteAgentPortfolio(withActor(deps, request.actor), request.params.agentPortfolioId);
        return reply.status(204).send(null);
      }),
  });

  createTokenRoute(
    app,
    deps,
    "POST",
    "/api/v1/agent-portfolios/:agentPortfolioId/user-tokens",
    "createAgentPortfolioUserToken",
    1,
  );
  createTokenRoute(
    app,
    deps,
    "POST",
    "/api/v2/agent-portfolios/:agentPortfolioId/user-tokens",
    "createAgentPortfolioUserTokenV2",
    2,
  );
  updateTokenRoute(
    app,
    deps,
    "PATCH",
    "/api/v1/agent-portfolios/:agentPortfolioId/user-tokens/:userTokenId",
    "updateAgentPortfolioUserToken",
    1,
  );
  updateTokenRoute(
    app,
    deps,
    "PATCH",
    "/api/v2/agent-portfolios/:agentPortfolioId/user-tokens/:userTokenId",
    "updateAgentPortfolioUserTokenV2",
    2,
  );

  app.route({
    method: "DELETE",
    url: "/api/v1/agent-portfolios/:agentPortfolioId/user-tokens/:userTokenId",
    ...api(
      write,
      {
        operationId: "deleteAgentPortfolioUserToken",
        tags: TAGS,
        summary: "Revoke a user token",
        params: TokenParams,
        response: { 204: NoContent, 400: BAD("ValidationFailed: not an id"), 404: NOT_FOUND },
      },
      prefix,
    ),
    handler: (request, reply) =>
      answering(request, reply, async () => {
        await deleteUserToken(
          withActor(deps, request.actor),
          request.params.agentPortfolioId,
          request.params.userTokenId,
        );
        return reply.status(204).send(null);
      }),
  });

  app.route({
    method: "GET",
    url: "/api/v2/agent-portfolios/user-tokens/scopes",
    ...api(
      read,
      {
        operationId: "getAgentPortfolioAllowedScopesV2",
        tags: TAGS,
        summary: "The scope names a user token may be given",
        response: { 200: GetAllowedScopesResponse },
      },
      prefix,
    ),
    handler: async (request) => ({ scopes: allowedScopes(withActor(deps, request.actor)) }),
  });
}

/** The create-token route of v1 (scope ids) or v2 (scope names): same rules, upstream's two operations. */
function createTokenRoute(
  app: App,
  deps: Deps,
  method: "POST",
  url: string,
  operationId: string,
  version: 1 | 2,
): void {
  const prefix = deps.config.scopePrefix;
  app.route({
    method,
    url,
    ...api(
      write,
      {
        operationId,
        tags: TAGS,
        summary: version === 1 ? "Create a user token (scope ids; deprecated)" : "Create a user token (scope names)",
        description:
          "A new user token of the agent portfolio's account, bound to the caller's application key: with that " +
          "x-api-key it trades the agent's account within its scopes, from its allow-listed IPv4 addresses only. " +
          "403 ScopeNameNotAllowed for a scope name outside the allowed ones; 409 UserKeyNameAlreadyExists; 429 " +
          "MaxUserTokensExceeded when the portfolio holds COPY_MAX_USER_TOKENS tokens.",
        ...(version === 1 ? { deprecated: true } : {}),
        params: PortfolioParams,
        body: version === 1 ? CreateUserTokenBody : CreateUserTokenV2Body,
        response: {
          201: CreateUserTokenResponse,
          400: BAD("ScopeIdsRequired, ScopeIdNotAllowed, IpsWhitelistInvalidIp or ValidationFailed"),
          404: NOT_FOUND,
          409: NAME_TAKEN,
        },
      },
      prefix,
    ),
    handler: (request, reply) =>
      answering(request, reply, async () => {
        const issued = await createUserToken(
          withActor(deps, request.actor),
          request.params.agentPortfolioId,
          request.body,
          version,
        );
        return reply.status(201).send(toCreatedToken(issued, prefix));
      }),
  });
}

/** The update-token route of v1 or v2. */
function updateTokenRoute(
  app: App,
  deps: Deps,
  method: "PATCH",
  url: string,
  operationId: string,
  version: 1 | 2,
): void {
  const prefix = deps.config.scopePrefix;
  app.route({
    method,
    url,
    ...api(
      write,
      {
        operationId,
        tags: TAGS,
        summary: version === 1 ? "Update a user token (scope ids; deprecated)" : "Update a user token (scope names)",
        description:
          "At least one field (400 NoChangesDetected otherwise); 403 ScopeNameNotAllowed for a scope name " +
          "outside the allowed ones. Takes effect at once on every instance.",
        ...(version === 1 ? { deprecated: true } : {}),
        params: TokenParams,
        body: version === 1 ? UpdateUserTokenBody : UpdateUserTokenV2Body,
        response: {
          204: NoContent,
          400: BAD("NoChangesDetected, ScopeIdNotAllowed, IpsWhitelistInvalidIp or ValidationFailed"),
          404: NOT_FOUND,
        },
      },
      prefix,
    ),
    handler: (request, reply) =>
      answering(request, reply, async () => {
        await updateUserToken(
          withActor(deps, request.actor),
          request.params.agentPortfolioId,
          request.params.userTokenId,
          request.body,
        );
        return reply.status(204).send(null);
      }),
  });
}
