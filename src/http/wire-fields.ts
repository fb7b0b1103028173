/*
 * Wire names at the edge (docs/decisions/0096). Use cases name a broken rule's field by its domain
 * path (`amount`, `attachments[2].url`); the client reads the wire path, one spelling everywhere:
 * `body/…`, `querystring/…`, `params/…`, `headers/…`, the same as the schema validator's.
 */

/**
 * A route's domain names whose wire name is not the same name in another casing: a domain path
 * (or its beginning) → the wire path, e.g. `{ units: "body/AmountInUnits", items: "body" }`.
 */
export type WireFields = Readonly<Record<string, string>>;

type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** What the resolver reads of a route: its request schemas and its declared names. */
export interface RouteNames {
  schema?: Partial<Record<Location, unknown>> | undefined;
  fields?: WireFields | undefined;
}

const LOCATIONS = ["params", "querystring", "body", "headers"] as const;
type Location = (typeof LOCATIONS)[number];

/** Names every route shares: the x-request-id header is the request's id. */
const COMMON: WireFields = { requestId: "headers/x-request-id" };

const WIRE_PATH = /^(body|querystring|params|headers)(\/|$)/;
const TOKENS = /\[(\d+)\]|[^.[\]]+/g;

/** The branch of a union that describes objects or arrays (as src/http/json-bodies.ts reads bodies). */
function structural(schema: JsonSchema | undefined): JsonSchema | undefined {
  const alternatives = schema?.anyOf ?? schema?.oneOf;
  return alternatives ? (alternatives.find((s) => s.properties || s.items) ?? schema) : schema;
}

/** The property of `schema` named `name` in any casing (bodies bind case-insensitively). */
function property(schema: JsonSchema | undefined, name: string): [string, JsonSchema] | undefined {
  const properties = structural(schema)?.properties;
  if (!properties) return undefined;
  if (name in properties) return [name, properties[name]!];
  const lower = name.toLowerCase();
  const found = Object.keys(properties).find((k) => k.toLowerCase() === lower);
  return found === undefined ? undefined : [found, properties[found]!];
}

/** The schema a wire path points into, or undefined when the route's schemas do not say. */
function schemaAt(route: RouteNames, wire: string): JsonSchema | undefined {
  const [location, ...steps] = wire.split("/");
  let schema = route.schema?.[location as Location] as JsonSchema | undefined;
  for (const step of steps) {
    schema = /^\d+$/.test(step) ? structural(schema)?.items : property(schema, step)?.[1];
  }
  return schema;
}

/**
 * The wire path of a domain path. The route's declared names come first (longest match), then a
 * property of the same name in any casing, looked for in the path, query, body and headers
 * schemas; the rest of the path follows the schema into arrays and objects. A path already on
 * the wire is kept; a name the route cannot place is kept too (the tests name every field).
 */
export function wirePathOf(field: string, route: RouteNames): string {
  if (WIRE_PATH.test(field)) return field;
  const tokens = [...field.matchAll(TOKENS)].map((m) => ({ text: m[0], index: m[1] }));
  if (tokens.length === 0 || tokens[0]!.index !== undefined) return field;
  const fields = { ...COMMON, ...route.fields };

  let wire: string | undefined;
  let used = 0;
  let domain = "";
  for (const [i, token] of tokens.entries()) {
    domain += token.index !== undefined || i === 0 ? token.text : `.${token.text}`;
    if (fields[domain] !== undefined) {
      wire = fields[domain];
      used = i + 1;
    }
  }
  let schema: JsonSchema | undefined;
  if (wire !== undefined) {
    schema = schemaAt(route, wire);
  } else {
    const head = tokens[0]!.text;
    for (const location of LOCATIONS) {
      const found = property(route.schema?.[location] as JsonSchema | undefined, head);
      if (found) {
        wire = `${location}/${found[0]}`;
        schema = found[1];
        used = 1;
        break;
      }
    }
    if (wire === undefined) return field;
  }
  for (const token of tokens.slice(used)) {
    if (token.index !== undefined) {
      wire += `/${token.index}`;
      schema = structural(schema)?.items;
    } else {
      const found = property(schema, token.text);
      wire += `/${found?.[0] ?? token.text}`;
      schema = found?.[1];
    }
  }
  return wire;
}

/** A name or path as a sentence shows it: bare when it is plain, else quoted. */
export const named = (name: string) => (/^[\w./~@$-]+$/.test(name) ? name : JSON.stringify(name));

/** How a wire path is named at the start of a sentence: `body field Amount`, `header x-request-id`. */
export function subjectOf(wire: string): string {
  const slash = wire.indexOf("/");
  const location = slash < 0 ? wire : wire.slice(0, slash);
  const path = slash < 0 ? "" : named(wire.slice(slash + 1));
  switch (location) {
    case "body":
      return path ? `body field ${path}` : "the body";
    case "querystring":
      return path ? `query parameter ${path}` : "the query string";
    case "params":
      return path ? `path parameter ${path}` : "the path";
    case "headers":
      return path ? `header ${path}` : "the headers";
    default:
      return `field ${named(wire)}`;
  }
}

/** How a field named inside a sentence reads: its last wire name (`IsNoStopLoss`, `x-request-id`). */
export function referenceOf(wire: string): string {
  return WIRE_PATH.test(wire) ? (wire.split("/").at(-1) ?? wire) : wire;
}
