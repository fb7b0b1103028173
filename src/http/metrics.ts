import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler, RouteOptions } from "fastify";
import type { MetricsSettings } from "../config.js";
import { AppError } from "../core/errors.js";
import type { HttpSeries, Metrics } from "../infra/metrics.js";

/*
 * The HTTP side of the metrics (docs/decisions/0106): `GET /metrics` for a scraper holding the
 * token, and the count and duration of every answer per method, route pattern and status.
 *
 * Nothing runs per request unless METRICS=on. Then each route gets its own onResponse hook, made
 * when the route is declared and closing over its method and pattern (as the auth and limiter
 * hooks do, decision 0081): a request never looks its route up, and adds to the plain numbers of
 * its (route, status) series, made on the first answer with that status and read at scrape time.
 * The duration is Fastify's own `reply.elapsedTime` (its clock runs for the request logger anyway).
 */

/** The route label of requests no route matched (404s, 405s): one series, whatever the URL. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * A route's recorder: the series of each status made on first use, or of each (method, status)
 * for a route with several methods and for the unmatched requests (the method is then the
 * request's, bounded by the route's methods or by the methods Fastify's router knows).
 */
function recorder(metrics: Metrics, route: string, method: string | undefined): onResponseHookHandler {
  const known = new Map<number | string, HttpSeries>();
  const make = (m: string, status: number): HttpSeries => {
    const series = metrics.httpSeries(m, route, status);
    known.set(method === undefined ? `${m} ${status}` : status, series);
    return series;
  };
  return (request, reply, done) => {
    const status = reply.statusCode;
    const series =
      method === undefined
        ? (known.get(`${request.method} ${status}`) ?? make(request.method, status))
        : (known.get(status) ?? make(method, status));
    series.record(reply.elapsedTime / 1000);
    done();
  };
}

/** The recorder of requests no route matched (404s and 405s), for the not-found handler. */
export const unmatchedRecorder = (metrics: Metrics): onResponseHookHandler =>
  recorder(metrics, UNMATCHED_ROUTE, undefined);

const asList = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * With METRICS=on: records every route's answers (registered before the routes, so that it sees
 * them all) and serves `GET /metrics` to a caller sending `Authorization: Bearer <METRICS_TOKEN>`
 * (401 otherwise). With METRICS=off it does nothing: `/metrics` is a 404 like any unknown path.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, settings: MetricsSettings): void {
  if (!settings.enabled || settings.token === undefined) return;
  app.addHook("onRoute", (route: RouteOptions) => {
    const methods = [route.method].flat();
    const hook = recorder(metrics, route.url, methods.length === 1 ? methods[0] : undefined);
    route.onResponse = [...asList(route.onResponse), hook];
  });

  // Compared as digests, in constant time: neither the token nor its length leaks through timing.
  const expected = digest(`Bearer ${settings.token}`);
  app.get("/metrics", { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const sent = request.headers.authorization;
    if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
      void reply.header("WWW-Authenticate", 'Bearer realm="metrics"');
      throw new AppError(
        "Unauthorized",
        sent === undefined
          ? "/metrics needs Authorization: Bearer <METRICS_TOKEN>"
          : "The bearer token is not this server's METRICS_TOKEN",
      );
    }
    const { contentType, body } = await metrics.scrape();
    return reply.type(contentType).send(body);
  });
}
