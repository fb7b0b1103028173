import { api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { type Deps, withActor } from "../context.js";
import {
  AssetsHistory,
  DailyGainQuery,
  DailyGainResult,
  ExposureHistory,
  GainHistory,
  GainHistoryParams,
  GainHistoryQuery,
  GainResult,
  HistoryQuery,
  LivePortfolio,
  PeopleQuery,
  PeopleResult,
  Privacy,
  PrivacyChange,
  SearchQuery,
  SearchResult,
  TradeInfo,
  TradeInfoQuery,
  UsernameParams,
} from "./people.schemas.js";
import { readDailyGain, readGain, readGainHistory } from "./performance/read-gain.js";
import { readTradeInfo } from "./performance/read-trade-info.js";
import { readLivePortfolio } from "./portfolio/read-live-portfolio.js";
import { readAssetsHistory, readExposureHistory } from "./portfolio/read-portfolio-history.js";
import { PEOPLE_READ } from "./privacy/privacy.js";
import { PRIVACY_READ, PRIVACY_WRITE, readPrivacy, setPrivacy } from "./privacy/set-privacy.js";
import { readPeople } from "./read-people.js";
import { searchPeople } from "./search/search-people.js";
import { CACHE, cacheFor, STATS, statsAccess } from "./stats-cache.routes.js";

const INFO = ["Users Info"];

export function registerPeopleRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;

  app.route({
    method: "GET",
    url: "/api/v1/user-info/people",
    ...api(
      { scopes: PEOPLE_READ },
      {
        operationId: "retrieveComprehensiveUserProfileDataAggregated",
        tags: INFO,
        summary: "Users by username or customer id",
        description:
          "Give `usernames` or `cidList` (comma-separated, at most 50): 400 for neither, both, too many or a malformed " +
          "name; 404 when any one is unknown (a private profile or one across a block reads as unknown).",
        querystring: PeopleQuery,
        response: { 200: PeopleResult },
      },
      prefix,
    ),
    handler: async (request) => ({ users: await readPeople(withActor(deps, request.actor), request.query) }),
  });

  app.route({
    method: "GET",
    url: "/api/v1/user-info/people/search",
    ...api(
      { scopes: PEOPLE_READ },
      {
        operationId: "comprehensiveSearchAnalyticsEngineUserDiscovery",
        tags: INFO,
        summary: "Search traders by performance, risk and holdings (rankings: sort by gain)",
        description:
          "Figures as of each account's last daily snapshot, gains in percent over `period`. Public profiles with " +
          "recorded history only.",
        querystring: SearchQuery,
        response: { 200: SearchResult },
      },
      prefix,
    ),
    handler: async (request) => searchPeople(withActor(deps, request.actor), request.query),
  });

  app.route({
    method: "GET",
    url: "/api/v1/user-info/people/:username/gain",
    ...api(
      { scopes: PEOPLE_READ },
      {
        operationId: "retrieveDetailedHistoricalPerformanceMetricsAnalytics",
        tags: INFO,
        summary: "A user's monthly and yearly gains (time-weighted, percent)",
        params: UsernameParams,
        response: { 200: GainResult },
      },
      prefix,
    ),
    handler: async (request) => readGain(withActor(deps, request.actor), request.params.username),
  });

  app.route({
    method: "GET",
    url: "/api/v1/user-info/people/:username/daily-gain",
    ...api(
      { scopes: PEOPLE_READ },
      {
        operationId: "retrieveGranularPerformanceDataSpecificTime",
        tags: INFO,
        summary: "A user's daily gains in a date range, or their compound (percent)",
        params: UsernameParams,
        querystring: DailyGainQuery,
        response: { 200: DailyGainResult },
      },
      prefix,
    ),
    handler: async (request) => readDailyGain(withActor(deps, request.actor), request.params.username, request.query),
  });

  app.route({
    method: "GET",
    url: "/api/v1/user-info/people/:username/portfolio/live",
    ...api(
      { scopes: PEOPLE_READ },
      {
        operationId: "getLivePortfolioUser",
        tags: INFO,
        summary: "A user's open positions now, as percentages of their equity",
        description: "403 when the owner opted out of portfolio exposure (not for the owner).",
        params: UsernameParams,
        response: { 200: LivePortfolio },
      },
      prefix,
    ),
    handler: async (request) => readLivePortfolio(withActor(deps, request.actor), request.params.username),
  });

  app.route({
    method: "GET",
    url: "/api/v1/user-info/people/:username/tradeinfo",
    ...api(
      { scopes: PEOPLE_READ },
      {
        operationId: "getTradeInfoSpecificUser",
        tags: INFO,
        summary: "A user's trading statistics over a period",
        params: UsernameParams,
        querystring: TradeInfoQuery,
        response: { 200: TradeInfo },
      },
      prefix,
    ),
    handler: async (request) =>
      readTradeInfo(withActor(deps, request.actor), request.params.username, request.query.period),
  });

  app.route({
    method: "GET",
    url: "/api/v2/portfolios/:username/assets/history",
    ...api(
      statsAccess,
      {
        operationId: "getAssetsHistory",
        tags: STATS,
        summary: "Daily asset allocation (fractions)",
        description: `Use period, or minDate and maxDate (400 otherwise); count downsamples. 403 when the owner opted out. ${CACHE}`,
        params: UsernameParams,
        querystring: HistoryQuery,
        response: { 200: AssetsHistory },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      void reply.header("cache-control", "no-store");
      const { target, body } = await readAssetsHistory(
        withActor(deps, request.actor),
        request.params.username,
        request.query,
      );
      cacheFor(reply, target);
      return body;
    },
  });

  app.route({
    method: "GET",
    url: "/api/v2/portfolios/:username/exposure/history",
    ...api(
      statsAccess,
      {
        operationId: "getExposureHistory",
        tags: STATS,
        summary: "Daily directional exposure per instrument (fractions of equity)",
        description: `Use period, or minDate and maxDate (400 otherwise); count downsamples. 403 when the owner opted out. ${CACHE}`,
        params: UsernameParams,
        querystring: HistoryQuery,
        response: { 200: ExposureHistory },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      void reply.header("cache-control", "no-store");
      const { target, body } = await readExposureHistory(
        withActor(deps, request.actor),
        request.params.username,
        request.query,
      );
      cacheFor(reply, target);
      return body;
    },
  });

  app.route({
    method: "GET",
    url: "/api/v2/portfolios/:username/gain/:granularity",
    ...api(
      statsAccess,
      {
        operationId: "getGainHistory",
        tags: STATS,
        summary: "Gain series by day, month or year (decimal fractions)",
        description:
          "minDate and maxDate, or one of them with count (the first or last count points), or count alone (the " +
          `last count points); all three is a 400. 403 when the owner opted out. ${CACHE}`,
        params: GainHistoryParams,
        querystring: GainHistoryQuery,
        response: { 200: GainHistory },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      void reply.header("cache-control", "no-store");
      const { target, body } = await readGainHistory(
        withActor(deps, request.actor),
        request.params.username,
        request.params.granularity,
        request.query,
      );
      cacheFor(reply, target);
      return body;
    },
  });

  app.route({
    method: "GET",
    url: "/api/v1/user-info/privacy",
    ...api(
      { scopes: PRIVACY_READ },
      {
        operationId: "getPrivacyChoices",
        tags: INFO,
        summary: "The caller's privacy choices (our extension)",
        response: { 200: Privacy },
      },
      prefix,
    ),
    handler: async (request) => readPrivacy(withActor(deps, request.actor)),
  });

  app.route({
    method: "PUT",
    url: "/api/v1/user-info/privacy",
    ...api(
      { scopes: PRIVACY_WRITE },
      {
        operationId: "setPrivacyChoices",
        tags: INFO,
        summary: "Choose whether the profile and portfolio are public and whether others may copy (our extension)",
        body: PrivacyChange,
        response: { 200: Privacy },
      },
      prefix,
    ),
    handler: async (request) => setPrivacy(withActor(deps, request.actor), request.body),
  });
}
