import { api } from "../../http/access.js";
import { NOTE, OPERATOR, type SandboxRouteKit, TAGS } from "./route-kit.routes.js";
import { StrategyPassView } from "./sandbox.schemas.js";
import { tradeSeededTraders } from "./traders.js";

export function registerTraderControls({ app, prefix, ctx }: SandboxRouteKit): void {
  app.route({
    method: "POST",
    url: "/sandbox/v1/traders/trade",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxTradeSeededTraders",
        tags: TAGS,
        summary: "The seeded traders trade now: one pass of their strategy",
        description:
          "Each seeded trader (alice, bob, carmen) rolls its oldest position (closes it at market and opens it " +
          "again with what came back), or opens its plan when it holds nothing, through the same trading " +
          "path as any client: copies mirror it. The server also runs a pass every " +
          `PEOPLE_SEEDED_TRADING_EVERY_SECONDS (decision 0174).${NOTE}`,
        response: { 200: StrategyPassView },
      },
      prefix,
    ),
    handler: async (request) => tradeSeededTraders(ctx(request)),
  });
}
