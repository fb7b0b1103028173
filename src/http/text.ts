import type { FastifyInstance, preHandlerHookHandler, RouteOptions } from "fastify";

/*
 * No text of a request may contain U+0000 (decision 0101). PostgreSQL cannot store it in a text
 * column and fails the whole statement; SQLite would keep it and hand it to every reader. So a
 * path, query or body string holding one is refused with 422 before any use case runs, on both
 * engines alike, the detail naming the field as a validation error does.
 */

const NUL = "\u0000";
const MAX_DEPTH = 32;

/** JSON-pointer paths (`/mentions/mentions/0/userName`) of the strings under `value` holding NUL. */
function pathsWithNul(value: unknown, path: string, out: string[], depth: number): void {
  if (typeof value === "string") {
    if (value.includes(NUL)) out.push(path);
  } else if (value !== null && typeof value === "object" && depth < MAX_DEPTH) {
    for (const [key, v] of Object.entries(value)) pathsWithNul(v, `${path}/${key}`, out, depth + 1);
  }
}

/** A Fastify validation error, so that the error handler words and places it like any other. */
function nulError(context: string, paths: string[]): Error {
  return Object.assign(new Error("The request text contains the NUL character"), {
    statusCode: 422,
    validationContext: context,
    validation: paths.map((instancePath) => ({
      instancePath,
      schemaPath: "#",
      keyword: "noNulCharacter",
      params: {},
      message: "must not contain the NUL character (U+0000)",
    })),
  });
}

/** The first of `value`'s parts holding NUL, as a validation error; undefined when none does. */
function nulIn(context: string, value: unknown): Error | undefined {
  const paths: string[] = [];
  pathsWithNul(value, "", paths, 0);
  return paths.length > 0 ? nulError(context, paths) : undefined;
}

/*
 * On the hot path (every route), so the common request pays one scan of its URL: a path or query
 * can only hold NUL as `%00` (the HTTP parser refuses a raw one), and only a request with a body
 * has a body to walk.
 */
const refuseNul: preHandlerHookHandler = (request, _reply, done) => {
  const inUrl = request.url.includes("%00");
  const error =
    (inUrl ? (nulIn("params", request.params) ?? nulIn("querystring", request.query)) : undefined) ??
    (request.body === undefined ? undefined : nulIn("body", request.body));
  done(error);
};

interface SchemaNode {
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
}

/**
 * Whether a params or querystring schema admits free text: a string its schema does not already
 * hold to a format, pattern or list (a uuid, an integer, an enum cannot carry NUL). No schema at
 * all admits anything.
 */
function admitsFreeText(node: SchemaNode | undefined): boolean {
  if (node === undefined) return true;
  if (node.properties) return Object.values(node.properties).some(admitsFreeText);
  if (node.items) return admitsFreeText(node.items);
  const types = node.type === undefined ? [] : [node.type].flat();
  if (node.type !== undefined && !types.includes("string")) return false;
  return node.format === undefined && node.pattern === undefined && node.enum === undefined && node.const === undefined;
}

/**
 * The routes that can receive text refuse path, query and body text holding NUL (after validation,
 * before the handler). A route whose path and query are all uuids, numbers and enums, and that takes
 * no body (most reads: `GET /api/v1/posts/:postId`), gets no hook: a hook costs every request of its
 * route Fastify's hook runner.
 */
export function registerTextRules(app: FastifyInstance): void {
  app.addHook("onRoute", (route: RouteOptions) => {
    const schema = route.schema as { body?: unknown; params?: SchemaNode; querystring?: SchemaNode } | undefined;
    const takesBody = [route.method].flat().some((m) => m !== "GET" && m !== "HEAD");
    const hasParams = route.url.includes(":") || route.url.includes("*");
    const free =
      takesBody ||
      schema?.body !== undefined ||
      (hasParams && admitsFreeText(schema?.params)) ||
      (schema?.querystring !== undefined && admitsFreeText(schema.querystring)) ||
      // No query schema: the query is not read as typed data, but may still be read as text.
      (schema?.querystring === undefined && route.url.startsWith("/api/"));
    if (!free) return;
    const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
    route.preHandler = [refuseNul, ...own];
  });
}
