import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger } from "fastify";
import type { Config } from "./config.js";
import { ERROR_STATUS } from "./core/errors.js";
import type { App } from "./http/app-type.js";
import { registerAuth, registerScopeCheck } from "./http/auth.js";
import { registerCors } from "./http/cors.js";
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH, registerErrorHandling } from "./http/errors.js";
import { registerJsonBodies } from "./http/json-bodies.js";
import { registerMetrics, unmatchedRecorder } from "./http/metrics.js";
import { registerOpenApi } from "./http/openapi.js";
import { registerRateLimit, trustProxyOption } from "./http/rate-limit.js";
import { requestIdFrom } from "./http/request-id.js";
import { requestLogger } from "./http/request-logger.js";
import { registerRouteTable } from "./http/route-table.js";
import { lazySerializers } from "./http/serializers.js";
import { registerTextRules } from "./http/text.js";
import { AJV_OPTIONS } from "./http/validation-messages.js";
import { lazyValidators } from "./http/validators.js";
import { registerWebSocketUpgrade } from "./http/websocket.js";
import { storeFailureOf } from "./infra/db/failures.js";
import { registerClubRoutes } from "./modules/clubs/clubs.routes.js";
import type { Deps } from "./modules/context.js";
import { registerAgentPortfolioRoutes } from "./modules/copy-trading/agent-portfolios/agent-portfolios.routes.js";
import { registerCopiersRoutes } from "./modules/copy-trading/copiers/copiers.routes.js";
import { registerCopyRoutes } from "./modules/copy-trading/copies/copies.routes.js";
import { registerDashboardRoutes } from "./modules/dashboard/dashboard.routes.js";
import { registerHealthRoutes } from "./modules/health/health.routes.js";
import { createKeyPairAuthenticator } from "./modules/identity/authenticate.js";
import { registerAvatarRoutes } from "./modules/identity/avatar.routes.js";
import { registerIdentityRoutes } from "./modules/identity/identity.routes.js";
import { registerMarketRoutes } from "./modules/market/market.routes.js";
import { registerMediaRoutes } from "./modules/media/media.routes.js";
import { registerNotificationRoutes } from "./modules/notifications/notifications.routes.js";
import { bearerAuthenticator, registerOAuthRoutes } from "./modules/oauth/oauth.routes.js";
import { registerPeopleRoutes } from "./modules/people/people.routes.js";
import { registerPriceAlertRoutes } from "./modules/price-alerts/price-alerts.routes.js";
import { createRealtimeServer } from "./modules/realtime/server.js";
import { registerFaultInjection, registerSandboxRoutes } from "./modules/sandbox/sandbox.routes.js";
import { registerSocialRoutes } from "./modules/social/social.routes.js";
import { registerCostsRoutes } from "./modules/trading/costs/costs.routes.js";
import { registerEligibilityRoutes } from "./modules/trading/eligibility/eligibility.routes.js";
import { registerOrderRoutes } from "./modules/trading/orders/orders.routes.js";
import { registerTradingRoutes } from "./modules/trading/trading.routes.js";
import { registerWatchlistRoutes } from "./modules/watchlists/watchlists.routes.js";

export type { App };

/** Pino options shared by the server and the CLI: secrets in headers never reach a log line. */
export const LOG_REDACT = ["req.headers.authorization", 'req.headers["x-api-key"]', 'req.headers["x-user-key"]'];

/**
 * The only way an app is built, tests included. It owns the HTTP layer only: `deps`
 * (database, bus, clock, logger) are made by the caller and closed by the caller.
 */
export async function buildApp(config: Config, deps: Deps): Promise<App> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    childLoggerFactory: requestLogger,
    bodyLimit: config.bodyLimit,
    // Whose X-Forwarded-For gives request.ip (anonymous callers are rate-limited by it).
    trustProxy: trustProxyOption(config.trustProxy),
    requestIdHeader: false,
    genReqId: requestIdFrom,
    // Keep-alive sockets must not hold a graceful shutdown open.
    forceCloseConnections: "idle",
    clientErrorHandler,
    frameworkErrors,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ajv: { customOptions: AJV_OPTIONS },
    schemaController: {
      compilersFactory: { buildSerializer: lazySerializers(), buildValidator: lazyValidators() },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerRouteTable(app);
  // Before every route, so that each gets its recorder (METRICS=on only).
  registerMetrics(app, deps.metrics, config.metrics);
  registerJsonBodies(app);
  registerTextRules(app);
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  registerCors(app, config.corsOrigins);
  registerErrorHandling(
    app,
    (code) => ERROR_STATUS[code],
    config.scopePrefix,
    storeFailureOf,
    config.metrics.enabled ? unmatchedRecorder(deps.metrics) : undefined,
    () => deps.clock.now(),
  );
  const authenticators = {
    keyPair: createKeyPairAuthenticator(deps),
    bearer: bearerAuthenticator(app, deps),
  };
  registerAuth(app, authenticators);
  // After auth (the caller is known) and before the scope check and any route, so every answer
  // to a known caller (403 included) is counted and carries the RateLimit headers.
  registerRateLimit(app, config, deps.rateLimits, deps.log, deps.metrics);
  registerScopeCheck(app);
  // With the sandbox on (decision 0150): armed faults answer before any route's work.
  registerFaultInjection(app, deps);
  await registerOpenApi(app, config.scopePrefix);

  registerHealthRoutes(app, deps);
  registerIdentityRoutes(app, deps);
  registerNotificationRoutes(app, deps);
  registerOAuthRoutes(app, deps);
  registerMarketRoutes(app, deps);
  registerTradingRoutes(app, deps);
  registerOrderRoutes(app, deps);
  registerCostsRoutes(app, deps);
  registerEligibilityRoutes(app, deps);
  registerWatchlistRoutes(app, deps);
  registerSocialRoutes(app, deps);
  registerPeopleRoutes(app, deps);
  registerAvatarRoutes(app, deps);
  registerClubRoutes(app, deps);
  registerPriceAlertRoutes(app, deps);
  registerAgentPortfolioRoutes(app, deps);
  registerCopyRoutes(app, deps);
  registerCopiersRoutes(app, deps);
  await registerMediaRoutes(app, deps);
  registerSandboxRoutes(app, deps);
  registerDashboardRoutes(app, deps);
  // The real-time channel at /ws: the same credentials, checked by the same authenticators.
  registerWebSocketUpgrade(app, config, createRealtimeServer(deps, authenticators));

  await app.ready();
  return app;
}
