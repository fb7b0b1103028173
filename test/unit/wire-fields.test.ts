import fc from "fast-check";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { AppError, invalid, validationFailed } from "../../src/core/errors.js";
import { mapError } from "../../src/http/errors.js";
import { type RouteNames, subjectOf, wirePathOf } from "../../src/http/wire-fields.js";
import { ItemsBody } from "../../src/modules/watchlists/watchlists.schemas.js";

const openByUnits: RouteNames = {
  schema: {
    params: Type.Object({ positionId: Type.Integer() }),
    querystring: Type.Object({ take: Type.Integer() }),
    body: Type.Object({
      InstrumentID: Type.Integer(),
      AmountInUnits: Type.Number(),
      StopLossRate: Type.Optional(Type.Number()),
      attachments: Type.Array(
        Type.Object({ url: Type.String(), media: Type.Object({ image: Type.Object({ url: Type.String() }) }) }),
      ),
      tags: Type.Object({ tags: Type.Array(Type.Object({ id: Type.String() })) }),
    }),
    headers: Type.Object({ "x-request-id": Type.String() }),
  },
  fields: { units: "body/AmountInUnits", tags: "body/tags/tags" },
};

describe("domain fields to wire paths", () => {
  it.each([
    ["instrumentId", "body/InstrumentID"],
    ["stopLossRate", "body/StopLossRate"],
    ["units", "body/AmountInUnits"],
    ["take", "querystring/take"],
    ["positionId", "params/positionId"],
    ["requestId", "headers/x-request-id"],
    ["attachments[2].url", "body/attachments/2/url"],
    ["attachments[0].media.image.url", "body/attachments/0/media/image/url"],
    ["tags[1].id", "body/tags/tags/1/id"],
    ["tags[1]", "body/tags/tags/1"],
    // Already on the wire, or unknown to the route: kept as they are.
    ["body/Amount", "body/Amount"],
    ["headers/x-request-id", "headers/x-request-id"],
    ["nothingLikeIt", "nothingLikeIt"],
    ["[0].url", "[0].url"],
  ])("%s → %s", (domain, wire) => {
    expect(wirePathOf(domain, openByUnits)).toBe(wire);
  });

  it("a bare-array body: the route names the list, the schema names its items' properties", () => {
    const route: RouteNames = { schema: { body: ItemsBody }, fields: { items: "body" } };
    expect(wirePathOf("items", route)).toBe("body");
    expect(wirePathOf("items[3].ITEMID", route)).toBe("body/3/itemId");
  });

  it("any casing of a declared property path reaches the schema's own spelling", () => {
    const segment = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,7}$/);
    // A nested object schema and the path through it, in the schema's own spelling.
    const nested = fc.array(fc.tuple(segment, fc.boolean()), { minLength: 1, maxLength: 4 });
    const recase = (s: string, flips: boolean[]) =>
      [...s].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join("");
    fc.assert(
      fc.property(nested, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), (steps, flips) => {
        let schema: Record<string, unknown> = { type: "string" };
        for (const [name, isArray] of [...steps].reverse()) {
          const property = isArray ? { type: "array", items: schema } : schema;
          schema = { type: "object", properties: { [name]: property } };
        }
        let domain = "";
        let wire = "body";
        for (const [i, [name, isArray]] of steps.entries()) {
          domain += `${i === 0 ? "" : "."}${recase(name, flips)}${isArray ? "[0]" : ""}`;
          wire += `/${name}${isArray ? "/0" : ""}`;
        }
        expect(wirePathOf(domain, { schema: { body: schema } })).toBe(wire);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ["body", "the body"],
    ["body/Amount", "body field Amount"],
    ["querystring/take", "query parameter take"],
    ["params/postId", "path parameter postId"],
    ["headers/x-request-id", "header x-request-id"],
    ["body/a b. C", 'body field "a b. C"'],
    ["amount", "field amount"],
  ])("%s reads as %s", (wire, subject) => {
    expect(subjectOf(wire)).toBe(subject);
  });
});

describe("a use case's problems on the wire", () => {
  it("one problem: its field on the wire, one sentence, and the same sentence as errorMessage", () => {
    const error = invalid("units", "must be positive; got -1");
    expect(error.message).toBe("Units must be positive; got -1.");
    expect(mapError(error, "service-public", openByUnits)).toEqual({
      code: "ValidationFailed",
      message: "Body field AmountInUnits must be positive; got -1.",
      details: [{ field: "body/AmountInUnits", message: "Body field AmountInUnits must be positive; got -1." }],
    });
  });

  it("a reference to another field is named as that reader names it; quoted client text is left alone", () => {
    const error = validationFailed([
      { field: "stopLossRate", problem: "must be absent when {instrumentId} is 0" },
      { field: "tags[0].id", problem: 'must be an instrument id; got "{units}"' },
    ]);
    expect(error.message).toBe(
      'The request has 2 problems: stopLossRate must be absent when instrumentId is 0; tags[0].id must be an instrument id; got "{units}".',
    );
    expect(mapError(error, "service-public", openByUnits)).toEqual({
      code: "ValidationFailed",
      message: "The request has 2 problems in body/StopLossRate and body/tags/tags/0/id; see details.",
      details: [
        { field: "body/StopLossRate", message: "Body field StopLossRate must be absent when InstrumentID is 0." },
        { field: "body/tags/tags/0/id", message: 'Body field tags/tags/0/id must be an instrument id; got "{units}".' },
      ],
    });
  });

  it("other codes keep their message; their problems are named on the wire too", () => {
    const error = new AppError("Conflict", "Used already", [{ field: "requestId", problem: "was used" }]);
    expect(mapError(error, "service-public", {})).toEqual({
      code: "Conflict",
      message: "Used already",
      details: [{ field: "headers/x-request-id", message: "Header x-request-id was used." }],
    });
  });
});
