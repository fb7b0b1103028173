import type { FastifyInstance } from "fastify";
import { preValidationOfRoutes } from "./route-hooks.js";

/**
 * Upstream binds JSON bodies case-insensitively (ASP.NET), and clients rely on it: `Message`,
 * `MESSAGE` and `message` reach the same field. This renames each property of a body to the
 * casing its schema declares, recursively, before validation; responses keep exact casing.
 */
type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

const lowerMaps = new WeakMap<object, Map<string, string>>();
/** Property names by their lower case, computed once per schema object. */
function lowerNames(properties: Record<string, JsonSchema>): Map<string, string> {
  let map = lowerMaps.get(properties);
  if (!map) {
    map = new Map(Object.keys(properties).map((k) => [k.toLowerCase(), k]));
    lowerMaps.set(properties, map);
  }
  return map;
}

export function canonicalizeKeys(schema: JsonSchema | undefined, value: unknown): unknown {
  if (!schema || value === null || typeof value !== "object") return value;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const objectLike = alternatives.find((s) => s.properties || s.items);
    return objectLike ? canonicalizeKeys(objectLike, value) : value;
  }
  if (Array.isArray(value)) return schema.items ? value.map((v) => canonicalizeKeys(schema.items, v)) : value;
  if (!schema.properties) return value;
  const byLower = lowerNames(schema.properties);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const canonical = key in schema.properties ? key : (byLower.get(key.toLowerCase()) ?? key);
    // An exact-case key wins over a differently cased duplicate.
    if (canonical in out && canonical !== key) continue;
    out[canonical] = canonicalizeKeys(schema.properties[canonical], v);
  }
  return out;
}

/** Every route with a body schema reads its body case-insensitively, as upstream does. */
export function registerCaseInsensitiveBodies(app: FastifyInstance): void {
  preValidationOfRoutes(app, (route) => {
    const schema = route.schema?.body as JsonSchema | undefined;
    if (!schema) return undefined;
    return async (request) => {
      if (request.body && typeof request.body === "object") request.body = canonicalizeKeys(schema, request.body);
    };
  });
}

/**
 * JSON only: without the built-in text/plain parser every other content type gets 415. Many
 * clients send `content-type: application/json` on body-less POST/PUT operations (upstream has
 * several): an empty body is "no body" (a route that needs one answers 422), not a 400.
 * `__proto__` and `constructor` keys are refused (400).
 */
export function registerJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser("text/plain");
  const json = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    return json(request, text, done);
  });
  registerCaseInsensitiveBodies(app);
}
