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
    return (route) => onFirstUse(() => compile(route) as Serialize);
  };
}

/**
 * A serializer of `schema` compiled as a route's response is (on first use), for a part of an
 * answer written apart from its route (docs/decisions/0198): the same schema gives the same bytes.
 */
export function serializerOf<T>(schema: object): (data: T) => string {
  return onFirstUse(
    () => SerializerSelector()({}, {})({ schema, method: "GET", url: "", httpStatus: "200" }) as Serialize,
  );
}

type Serialize = (data: unknown) => string;

/** The serializer `make` compiles, compiled on the first call. */
function onFirstUse(make: () => Serialize): Serialize {
  let serialize: Serialize | undefined;
  return (data) => {
    serialize ??= make();
    return serialize(data);
  };
}
