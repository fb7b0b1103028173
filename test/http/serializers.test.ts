import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lazySerializers } from "../../src/http/serializers.js";
import { type Harness, startHarness } from "../support/harness.js";

/*
 * Response serializers are compiled on a route's first answer (docs/decisions/0194), so a schema
 * fast-json-stringify cannot compile would no longer stop the app at start: these tests compile
 * every route's, and check that the lazy serializer writes what the eager one writes.
 */
describe("response serializers", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite");
  });
  afterAll(async () => h.close());

  it("compile for every response schema of every route", () => {
    const compile = SerializerSelector()({}, {});
    let compiled = 0;
    for (const route of h.app.routeTable) {
      for (const [status, schema] of Object.entries(route.responses ?? {})) {
        expect(() => compile({ schema, url: route.url, method: route.method, httpStatus: status })).not.toThrow();
        compiled++;
      }
    }
    // Every operation of the API declares its answers.
    expect(compiled).toBeGreaterThan(200);
  });

  it("are compiled on first use, once, and write what the eager serializer writes", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "integer" },
        name: { type: "string" },
        tags: { type: "array", items: { type: "string" } },
      },
    };
    const route = { schema, url: "/x", method: "GET", httpStatus: "200" };
    const eager = SerializerSelector()({}, {})(route);
    let compiles = 0;
    const counting = () => {
      const build = SerializerSelector();
      return ((external: unknown, opts: unknown) => {
        const compile = build(external as never, opts as never);
        return (r: typeof route) => {
          compiles++;
          return compile(r);
        };
      }) as typeof build;
    };
    const lazy = lazySerializers(counting())({}, {})(route);
    expect(compiles).toBe(0);
    const value = { id: 7, name: 'a "quoted" name', tags: ["x", "y"], extra: true };
    expect(lazy(value)).toBe(eager(value));
    expect(lazy({ id: 8, name: "b", tags: [] })).toBe(eager({ id: 8, name: "b", tags: [] }));
    expect(compiles).toBe(1);
  });
});
