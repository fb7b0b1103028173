import type { FastifyReply, FastifyRequest } from "fastify";
import { AUTHORIZATION_PARAMS, type AuthorizationParams } from "./authorize.js";
import { PAGE_CSP } from "./oauth.pages.js";

/*
 * What the OAuth routes share: the form bodies RFC 6749 prescribes (first value of each name, repeats
 * noted) and the pages' replies. A `.routes.ts` file because it speaks Fastify (.dependency-cruiser.cjs).
 */

/** A parsed form or query: first value of each name, plus the names that were repeated. */
export interface Form {
  values: Record<string, string>;
  duplicates: string[];
}

export function collect(params: URLSearchParams): Form {
  const values: Record<string, string> = Object.create(null);
  const duplicates: string[] = [];
  for (const [name, value] of params) {
    if (name in values) {
      if (!duplicates.includes(name)) duplicates.push(name);
    } else values[name] = value;
  }
  return { values, duplicates };
}

export const formOf = (request: FastifyRequest): Form =>
  (request.body as Form | undefined) ?? { values: Object.create(null), duplicates: [] };

export const authParamsOf = (values: Record<string, string>): AuthorizationParams =>
  Object.fromEntries(AUTHORIZATION_PARAMS.filter((k) => values[k] !== undefined).map((k) => [k, values[k]]));

/** An HTML page of the authorization server, with its security headers; never cached. */
export const sendPage = (reply: FastifyReply, status: number, html: string) =>
  reply
    .status(status)
    .header("Content-Type", "text/html; charset=utf-8")
    .header("Content-Security-Policy", PAGE_CSP)
    .header("X-Frame-Options", "DENY")
    .header("X-Content-Type-Options", "nosniff")
    .header("Referrer-Policy", "no-referrer")
    .header("Cache-Control", "no-store")
    .send(html);
