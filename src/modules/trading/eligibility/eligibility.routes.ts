import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES } from "../demo-account.js";
import { checkEligibility, ELIGIBILITY_MAX, type EligibilityRequest } from "./check-eligibility.js";
import { EligibilityBody, EligibilityResponse } from "./eligibility.schemas.js";
import { toEligibility } from "./eligibility.view.js";

const DESCRIPTION =
  "Per instrument: limits, permitted order types, stop-loss and take-profit bands (percent of the margin) " +
  "and leverages per settlement type and direction. `allowOpenPosition` is false while the instrument's " +
  `market is closed. Unknown ids and symbols are listed apart; at most ${ELIGIBILITY_MAX} ids and symbols ` +
  "together (422 otherwise, and when neither is given).";

export function registerEligibilityRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const access = { scopes: READ_SCOPES, requestIdRequired: true } as const;
  const handler = async (request: { actor: Parameters<typeof withActor>[1]; body: unknown }) =>
    toEligibility(deps, await checkEligibility(withActor(deps, request.actor), request.body as EligibilityRequest));

  app.route({
    method: "POST",
    url: "/api/v2/trading/info/demo/eligibility",
    ...api(
      access,
      {
        operationId: "getInstrumentEligibilityDemo",
        tags: ["Demo Trading Info"],
        summary: "What the demo account may trade, per instrument",
        description: DESCRIPTION,
        body: EligibilityBody,
        response: { 200: EligibilityResponse },
      },
      prefix,
    ),
    handler,
  });

  app.route({
    method: "POST",
    url: "/api/v1/trading/info/demo/eligibility",
    ...api(
      access,
      {
        operationId: "getInstrumentEligibilityDemoDeprecated",
        tags: ["Demo Trading Info"],
        summary: "What the demo account may trade, per instrument (deprecated: use the v2 operation)",
        description: DESCRIPTION,
        deprecated: true,
        body: EligibilityBody,
        response: { 200: EligibilityResponse },
      },
      prefix,
    ),
    handler,
  });
}
