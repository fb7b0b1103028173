import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { expect } from "vitest";

/** Validates a response body against the very schema the route declares. */
export function expectSchema(schema: TSchema, value: unknown): void {
  const validator = Compile(schema);
  const errors = [...validator.Errors(value)].map((e) => `${e.instancePath} ${e.message}`);
  expect(errors).toEqual([]);
}
