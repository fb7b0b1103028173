import { api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { type Deps, withActor } from "../context.js";
import { ClubDashboard } from "./clubs.schemas.js";
import { CLUB_SCOPES, readClubDashboard } from "./read-club-dashboard.js";

export function registerClubRoutes(app: App, deps: Deps): void {
  app.route({
    method: "GET",
    url: "/api/v1/clubs",
    ...api(
      { scopes: CLUB_SCOPES, requestIdRequired: true },
      {
        operationId: "getClubDashboardData",
        tags: ["Clubs"],
        summary: "Get club dashboard data",
        description:
          "The caller's club: every tier by realized equity (the demo account's cash plus the money in open " +
          "positions), the account manager from the configured tier, the offers of the caller's tier and of the " +
          "next, the downgrade risk (a tier is kept for a grace period after equity falls under it) and the " +
          "webinars. The programme is configuration (CLUBS_FILE).",
        response: { 200: ClubDashboard },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) => readClubDashboard(withActor(deps, request.actor)),
  });
}
