import { createRequire } from "node:module";
import type { FastifyServerOptions } from "fastify";

/** A compiled Ajv validator, as Fastify calls it (validation.js: `schemaEnv`, then `errors`). */
export type Validate = ((data: unknown, dataCxt?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Compile = (route: { schema: unknown; method: string; url: string; httpPart?: string }) => Validate;
export type BuildValidator = (externalSchemas: unknown, options: unknown) => Compile;
/** The type Fastify's options give `schemaController.compilersFactory.buildValidator`. */
type FastifyBuildValidator = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>["buildValidator"]
>;

/**
 * Fastify's own validator builder (`@fastify/ajv-compiler`, the default when no `buildValidator`
 * is given), resolved from Fastify's own dependencies: the same code at the same version, not a
 * dependency of ours.
 */
export function fastifyValidators(): BuildValidator {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve("fastify"));
  return (fromFastify("@fastify/ajv-compiler") as () => BuildValidator)();
}

/**
 * Fastify's request validators (Ajv), each compiled when its route first validates a request
 * instead of when the app starts (docs/decisions/0196), as response serializers are (0194). Most
 * of the 146 operations' validators are never used by a given server; compiled, each holds its
 * generated code and Ajv's schema environment.
 *
 * Fastify reads `schemaEnv` before calling a validator (to give Ajv the parent of the root value,
 * so coercion can replace it) and `errors` after: both are read through to the compiled function,
 * so the first read of `schemaEnv` compiles, and the validator behaves as the eager one in every
 * call. A schema Ajv refuses fails on the route's first request, not at start:
 * test/http/validators.test.ts compiles every route's.
 */
export function lazyValidators(eager: BuildValidator = fastifyValidators()): FastifyBuildValidator {
  return lazy(eager) as unknown as FastifyBuildValidator;
}

function lazy(eager: BuildValidator): BuildValidator {
  return (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    return (route) => {
      let compiled: Validate | undefined;
      const real = () => {
        compiled ??= compile(route);
        return compiled;
      };
      const validate = ((data: unknown, dataCxt?: unknown) =>
        dataCxt === undefined ? real()(data) : real()(data, dataCxt)) as Validate;
      Object.defineProperties(validate, {
        schemaEnv: { get: () => real().schemaEnv },
        errors: { get: () => real().errors },
      });
      return validate;
    };
  };
}
