import type { FastifyInstance, FastifyRequest } from "fastify";
import { InsufficientPermissions } from "../core/access.js";
import { type Actor, ANONYMOUS, admitsAddress, type UserActor } from "../core/actor.js";
import { AppError } from "../core/errors.js";
import { acceptedScopesProblem, isAdmitted } from "../core/scopes.js";
import { onRequestOfGuardedRoutes } from "./route-hooks.js";

declare module "fastify" {
  interface FastifyRequest {
    actor: Actor;
  }
}

/** Resolves credentials to an actor; both return null when the credential is not valid. */
export interface Authenticators {
  /** May answer at once (a pair it has just verified) or later (after a lookup). */
  keyPair(apiKey: string, userKey: string): UserActor | null | Promise<UserActor | null>;
  /** Absent until an OAuth issuer is configured: every bearer token is then rejected. */
  bearer?: (token: string) => Promise<UserActor | BearerRefusal>;
}

/** Why a bearer token was refused: logged, and named in the 401 (never the token itself). */
export interface BearerRefusal {
  refused: string;
  /** `warn` for a cause that is usually a configuration mistake (issuer or audience mismatch). */
  level: "info" | "warn";
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
  onRequestOfGuardedRoutes(app, (access) => {
    const admit = (request: FastifyRequest, actor: Actor): AppError | undefined => {
      if (actor.kind === "anonymous" && access.auth !== "optional") {
        return new AppError(
          "Unauthorized",
          "Authentication required: send a bearer token or the x-api-key / x-user-key pair",
        );
      }
      if (actor.kind === "user" && !admitsAddress(actor, request.ip)) {
        return new AppError("Unauthorized", "This user token may not be used from this address (its IP allow-list)");
      }
      request.actor = actor;
      return undefined;
    };
    // Callback style: a credential verified a moment ago is admitted without a promise.
    return (request, reply, done) => {
      let actor: Actor | Promise<Actor>;
      try {
        actor = identify(request, authenticators, (challenge) => reply.header("WWW-Authenticate", challenge));
      } catch (error) {
        return done(error as Error);
      }
      if (actor instanceof Promise) actor.then((a) => done(admit(request, a)), done);
      else done(admit(request, actor));
    };
  });
}

/**
 * 403 InsufficientPermissions when a user's credential holds none of the route's scopes (any-of);
 * the error names the accepted scopes. A route whose access names no scope (an empty list, an
 * unknown scope) is refused when it is registered: the server does not start.
 */
export function registerScopeCheck(app: FastifyInstance): void {
  onRequestOfGuardedRoutes(app, (access, method, url) => {
    const problem = acceptedScopesProblem(access.scopes);
    if (problem) throw new Error(`Route ${method} ${url} declares no usable access: ${problem}`);
    return (request, _reply, done) => {
      const actor = request.actor;
      if (actor?.kind === "user" && !isAdmitted(actor.scopes, access.scopes)) {
        done(new InsufficientPermissions(access.scopes));
      } else done();
    };
  });
}

/** The caller, at once or after a lookup; throws (or rejects with) 401 for a bad credential. */
function identify(
  request: FastifyRequest,
  auth: Authenticators,
  challenge: (value: string) => void,
): Actor | Promise<Actor> {
  const authorization = single(request.headers.authorization);
  const apiKey = single(request.headers["x-api-key"]);
  const userKey = single(request.headers["x-user-key"]);
  const hasPair = apiKey !== undefined || userKey !== undefined;

  if (authorization !== undefined && hasPair) {
    throw new AppError("Unauthorized", "Send either a bearer token or the key pair, not both");
  }
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const bearer = (result: UserActor | BearerRefusal | null): Actor => {
      if (result && !("refused" in result)) return result;
      if (!result) {
        challenge(INVALID_TOKEN_CHALLENGE);
        throw new AppError(
          "Unauthorized",
          match ? "Bearer tokens are not accepted by this server" : "The Authorization header must be `Bearer <token>`",
        );
      }
      request.log[result.level]({ cause: result.refused }, `bearer token refused: ${result.refused}`);
      // RFC 6750 §3: error_description is printable ASCII without `"` or `\`.
      const description = result.refused.replace(/[^\x20-\x7e]|["\\]/g, "?");
      challenge(`${INVALID_TOKEN_CHALLENGE}, error_description="${description}"`);
      throw new AppError("Unauthorized", `The bearer token was refused: ${result.refused}`);
    };
    return match && auth.bearer ? auth.bearer(match[1]!).then(bearer) : bearer(null);
  }
  if (hasPair) {
    if (!apiKey || !userKey) {
      throw new AppError("Unauthorized", "x-api-key and x-user-key must be sent together");
    }
    const pair = (actor: UserActor | null): Actor => {
      if (actor) return actor;
      throw new AppError("Unauthorized", "Unknown or revoked key pair");
    };
    const actor = auth.keyPair(apiKey, userKey);
    return actor instanceof Promise ? actor.then(pair) : pair(actor);
  }
  return ANONYMOUS;
}
