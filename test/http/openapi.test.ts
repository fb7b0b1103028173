import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KNOWN_SCOPES } from "../../src/core/scopes.js";
import { type Harness, startHarness } from "../support/harness.js";

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
  parameters?: { name: string; in: string; required?: boolean }[];
};

describe("the OpenAPI document", () => {
  let h: Harness;
  let doc: {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, Operation>>;
    components: {
      securitySchemes: Record<
        string,
        { type: string; flows?: { authorizationCode: { scopes: Record<string, string> } } }
      >;
    };
  };
  beforeAll(async () => {
    h = await startHarness("sqlite");
    const res = await h.app.inject({ method: "GET", url: "/openapi.json" });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(async () => h.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map(([method, op]) => ({ path, method, op })),
    );
  const apiOperations = () => operations().filter((o) => o.path.startsWith("/api/"));

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("v1.342.0");
  });

  it("declares both security schemes, OAuth 2.0 with the spec's full scope list", () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
    expect(schemes.userKey).toMatchObject({ type: "apiKey", in: "header", name: "x-user-key" });
    const scopes = Object.keys(schemes.oauth2!.flows!.authorizationCode.scopes);
    expect(scopes.sort()).toEqual(KNOWN_SCOPES.map((s) => `service-public:${s}`).sort());
  });

  it("gives every API operation its scopes, error responses and RateLimit headers", () => {
    expect(apiOperations().length).toBeGreaterThan(0);
    for (const { path, method, op } of apiOperations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toBeTruthy();
      expect(op.security?.length, where).toBeGreaterThan(0);
      expect(
        op.security!.some((s) => "oauth2" in s),
        where,
      ).toBe(true);
      expect(
        op.security!.some((s) => "apiKey" in s && "userKey" in s),
        where,
      ).toBe(true);
      for (const status of ["401", "403", "422", "429", "500"])
        expect(op.responses[status], `${where} ${status}`).toBeDefined();
      expect(op.responses["429"]!.headers, where).toHaveProperty("Retry-After");
      const success = Object.entries(op.responses).find(([s]) => s.startsWith("2"));
      expect(success?.[1].headers, where).toHaveProperty("RateLimit-Limit");
    }
  });

  it("never marks a query parameter that has a default as required", () => {
    const offenders = apiOperations().flatMap(({ path, method, op }) =>
      (op.parameters ?? [])
        .filter(
          (p) =>
            p.in === "query" && p.required && (p as { schema?: { default?: unknown } }).schema?.default !== undefined,
        )
        .map((p) => `${method.toUpperCase()} ${path} ?${p.name}`),
    );
    expect(offenders).toEqual([]);
  });

  it("documents RateLimit headers on every answer to a known caller, not on 401", () => {
    for (const { path, method, op } of apiOperations()) {
      expect(op.responses["401"]!.headers ?? {}, `${method} ${path}`).not.toHaveProperty("RateLimit-Limit");
      expect(op.responses["403"]!.headers, `${method} ${path}`).toHaveProperty("RateLimit-Limit");
    }
  });

  it("lists the notifications scopes per operation and requires x-request-id there", () => {
    const get = doc.paths["/api/v1/notifications/messages"]!.get!;
    expect(get.security).toContainEqual({ oauth2: ["service-public:notifications:read"] });
    expect(get.security).toContainEqual({
      apiKey: ["service-public:notifications:read"],
      userKey: ["service-public:notifications:read"],
    });
    expect(get.parameters).toContainEqual(
      expect.objectContaining({ name: "x-request-id", in: "header", required: true }),
    );
    const patch = doc.paths["/api/v1/notifications/messages"]!.patch!;
    expect(patch.security).toContainEqual({ oauth2: ["service-public:notifications:write"] });
  });

  it("serves the docs page", async () => {
    const res = await h.app.inject({ method: "GET", url: "/docs/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/html");
  });
});
