import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";

type Build = ReturnType<typeof SerializerSelector>;
type Compile = ReturnType<Build>;

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled on the first answer its
 * route gives with that status instead of when the app starts (docs/decisions/0194). Compiling all
 * of them at start held the generated source and code of every route's serializers, about 25 MB
 * of heap for 146 operations, of which a running server uses a few.
 */
export function lazySerializers(eager: Build = SerializerSelector()): Build {
  return (externalSchemas, serializerOpts) => {
    const compile: Compile = eager(externalSchemas, serializerOpts);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => {
        serialize ??= compile(route) as (data: unknown) => string;
        return serialize(data);
      };
    };
  };
}

/**
 * A serializer of `schema` compiled as a route's response is (on first use), for a part of an
 * answer written apart from its route (docs/decisions/0198): the same schema gives the same bytes.
 */
export function serializerOf<T>(schema: object): (data: T) => string {
  let serialize: ((data: unknown) => string) | undefined;
  return (data: T) => {
    serialize ??= SerializerSelector()({}, {})({ schema, method: "GET", url: "", httpStatus: "200" }) as (
      data: unknown,
    ) => string;
    return serialize(data);
  };
}
