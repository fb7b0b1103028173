#!/usr/bin/env node
/**
 * Writes test/contract/upstream-openapi.json: the shapes of upstream's published OpenAPI document
 * that the contract test checks our answers against (decision 0088).
 *
 * Usage: node test/contract/extract-upstream.mjs <path of upstream's openapi.json>
 *
 * Kept: every operation's method, path and responses (status and JSON body schema), and every
 * component schema. Dropped: prose (descriptions, summaries, examples), parameters and request
 * bodies. Upstream's document is a source of names and shapes for us, not text to republish, and
 * what is dropped is most of its 0.9 MB.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PROSE = new Set(["description", "summary", "example", "examples", "externalDocs", "x-codeSamples"]);
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

const source = process.argv[2];
if (!source) {
  console.error("usage: node test/contract/extract-upstream.mjs <upstream-openapi.json>");
  process.exit(2);
}
const doc = JSON.parse(readFileSync(source, "utf8"));

/** A schema without its prose; `example` inside `properties` is a field name, so it stays. */
function shape(schema, inProperties = false) {
  if (Array.isArray(schema)) return schema.map((s) => shape(s));
  if (schema === null || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!inProperties && PROSE.has(key)) continue;
    out[key] = shape(value, !inProperties && key === "properties");
  }
  return out;
}

const paths = {};
for (const [path, item] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (!METHODS.has(method)) continue;
    const responses = {};
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      const json = response.content?.["application/json"];
      responses[status] = json?.schema ? { content: { "application/json": { schema: shape(json.schema) } } } : {};
    }
    paths[path] ??= {};
    paths[path][method] = { ...(op.deprecated ? { deprecated: true } : {}), responses };
  }
}

const out = {
  openapi: doc.openapi,
  info: { title: doc.info.title, version: doc.info.version, "x-extracted-by": "test/contract/extract-upstream.mjs" },
  paths,
  components: { schemas: shape(doc.components.schemas, true) },
};
const target = join(dirname(fileURLToPath(import.meta.url)), "upstream-openapi.json");
writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote ${target}`);
