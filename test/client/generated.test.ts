import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openApiDocument, SCHEMA_FILE, schemaSource } from "../../scripts/generate-client.mjs";

describe("the client's generated types", () => {
  it("are what the generator makes of the server's OpenAPI document today (else: npm run client:generate)", async () => {
    const doc = (await openApiDocument()) as { paths: Record<string, unknown> };
    const fresh = await schemaSource(doc);
    const checkedIn = readFileSync(SCHEMA_FILE, "utf8");
    // Every operation of the document is in the types; a stale file names the first path it lacks.
    const missing = Object.keys(doc.paths).filter((p) => !checkedIn.includes(`"${p}": {`));
    expect(missing, "paths missing from packages/client/src/generated/schema.ts").toEqual([]);
    expect(checkedIn === fresh, "packages/client/src/generated/schema.ts is stale: run npm run client:generate").toBe(
      true,
    );
  });

  it("leave x-request-id to the client where the server requires it", async () => {
    const doc = (await openApiDocument()) as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; required?: boolean }[] }>>;
    };
    const required = (d: typeof doc) =>
      Object.values(d.paths).flatMap((ops) =>
        Object.values(ops).flatMap((op) =>
          (op.parameters ?? []).filter((p) => p.in === "header" && p.name === "x-request-id" && p.required),
        ),
      );
    expect(required(doc).length).toBeGreaterThan(0);
    const { forClient } = await import("../../scripts/generate-client.mjs");
    expect(required(forClient(doc) as typeof doc)).toEqual([]);
  });
});
