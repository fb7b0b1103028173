import type { FastifyReply } from "fastify";
import { PEOPLE_READ, type Target } from "./privacy/privacy.js";

/** What every Users Stats read shares, the copiers read of copy-trading included. */
export const STATS = ["Users Stats"];

/** Users Stats wraps its errors in upstream's service envelope (as price alerts do). */
export const statsAccess = { scopes: PEOPLE_READ, serviceErrors: true } as const;

export const CACHE =
  "`Cache-Control`: `public, max-age=3600` for a portfolio its owner shows; `private, max-age=3600` for the owner's " +
  "own view of a portfolio they hid; `no-store` on a refusal.";

/** Upstream's Cache-Control of Users Stats: refusals are not stored; an owner's hidden portfolio is theirs alone. */
export function cacheFor(reply: FastifyReply, target: Target): void {
  const hidden = target.choices.portfolioOptOut || target.choices.isPrivate;
  void reply.header("cache-control", target.self && hidden ? "private, max-age=3600" : "public, max-age=3600");
}
