import type { FastifyInstance, FastifyRequest } from "fastify";
import { type Actor, ANONYMOUS, type UserActor } from "../core/actor.js";
import { AppError } from "../core/errors.js";
import { hasAnyScope } from "../core/scopes.js";
import { onRequestOfGuardedRoutes } from "./route-hooks.js";

declare module "fastify" {
  interface FastifyRequest {
    actor: Actor;
  }
}

/** Resolves credentials to an actor; both return null when the credential is not valid. */
export interface Authenticators {
  keyPair(apiKey: string, userKey: string): Promise<UserActor | null>;
  /** Absent until an OAuth issuer is configured: every bearer token is then rejected. */
  bearer?: (token: string) => Promise<UserActor | null>;
}

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

export const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"';

/**
 * Authentication for every route that declares `config.access`: sets `request.actor` or refuses
 * with 401. Runs in onRequest, so a bad credential is refused before the body is even read.
 * The scope check is a separate hook (registerScopeCheck), registered after the rate limiter so
 * that a 403 is counted and carries the RateLimit headers like any other answer to a known caller.
 */
export function registerAuth(app: FastifyInstance, authenticators: Authenticators): void {
  app.decorateRequest("actor", null as never);
  onRequestOfGuardedRoutes(app, (access) => async (request, reply) => {
    const actor = await identify(request, authenticators, (challenge) => reply.header("WWW-Authenticate", challenge));
    if (actor.kind === "anonymous" && access.auth !== "optional") {
      throw new AppError(
        "Unauthorized",
        "Authentication required: send a bearer token or the x-api-key / x-user-key pair",
      );
    }
    request.actor = actor;
  });
}

/** 403 InsufficientPermissions when a user's credential holds none of the route's scopes (any-of). */
export function registerScopeCheck(app: FastifyInstance): void {
  onRequestOfGuardedRoutes(app, (access) => (request, _reply, done) => {
    const actor = request.actor;
    if (actor?.kind === "user" && !hasAnyScope(actor.scopes, access.scopes)) {
      done(new AppError("InsufficientPermissions", "The credential lacks every scope this operation accepts"));
    } else done();
  });
}

async function identify(
  request: FastifyRequest,
  auth: Authenticators,
  challenge: (value: string) => void,
): Promise<Actor> {
  const authorization = single(request.headers.authorization);
  const apiKey = single(request.headers["x-api-key"]);
  const userKey = single(request.headers["x-user-key"]);
  const hasPair = apiKey !== undefined || userKey !== undefined;

  if (authorization !== undefined && hasPair) {
    throw new AppError("Unauthorized", "Send either a bearer token or the key pair, not both");
  }
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const actor = match && auth.bearer ? await auth.bearer(match[1]!) : null;
    if (!actor) {
      challenge(INVALID_TOKEN_CHALLENGE);
      throw new AppError("Unauthorized", "The bearer token is missing, malformed, expired or not valid here");
    }
    return actor;
  }
  if (hasPair) {
    if (!apiKey || !userKey) {
      throw new AppError("Unauthorized", "x-api-key and x-user-key must be sent together");
    }
    const actor = await auth.keyPair(apiKey, userKey);
    if (!actor) throw new AppError("Unauthorized", "Unknown or revoked key pair");
    return actor;
  }
  return ANONYMOUS;
}
