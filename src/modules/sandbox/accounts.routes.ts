import { api } from "../../http/access.js";
import { closePositionsOf, resetUser, setBalance } from "./accounts.js";
import { NOTE, OPERATOR, type SandboxRouteKit, TAGS } from "./route-kit.routes.js";
import { AccountView, ClosedPositions, SetBalanceBody, UserParams } from "./sandbox.schemas.js";

export function registerAccountControls({ app, prefix, ctx }: SandboxRouteKit): void {
  app.route({
    method: "PUT",
    url: "/sandbox/v1/accounts/:user/balance",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxSetBalance",
        tags: TAGS,
        summary: "Set a user's demo cash (USD)",
        description: `Opens the demo account first if the user never traded; open positions are left alone.${NOTE}`,
        params: UserParams,
        body: SetBalanceBody,
        response: { 200: AccountView },
      },
      prefix,
    ),
    handler: async (request) => setBalance(ctx(request), request.params.user, request.body.balance),
  });

  app.route({
    method: "DELETE",
    url: "/sandbox/v1/accounts/:user/balance",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResetBalance",
        tags: TAGS,
        summary: "Set a user's demo cash back to DEMO_BALANCE",
        description: NOTE,
        params: UserParams,
        response: { 200: AccountView },
      },
      prefix,
    ),
    handler: async (request) => setBalance(ctx(request), request.params.user, undefined),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/accounts/:user/close-positions",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxClosePositions",
        tags: TAGS,
        summary: "Close every open demo position of a user at the market now",
        description: NOTE,
        params: UserParams,
        response: { 200: ClosedPositions },
      },
      prefix,
    ),
    handler: async (request) => closePositionsOf(ctx(request), request.params.user),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/accounts/:user/reset",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResetUser",
        tags: TAGS,
        summary: "Reset a user's demo account: positions closed, history forgotten, cash at DEMO_BALANCE",
        description: NOTE,
        params: UserParams,
        response: { 200: ClosedPositions },
      },
      prefix,
    ),
    handler: async (request) => resetUser(ctx(request), request.params.user),
  });
}
