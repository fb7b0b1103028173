import type { FastifyReply } from "fastify";

/** A cache of answers' bytes (src/modules/social/shared/read-cache.ts is one). */
export interface AnswerCache {
  peek(key: string): Buffer | undefined;
  fill(key: string, compute: () => Promise<{ body: Buffer; deps: readonly string[] }>): Promise<Buffer>;
}

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Sends a read's 200 answer through the read cache: the body is what the route's own response
 * serializer makes of the view, so a cached answer is byte for byte the one computed. A hit is
 * sent at once, with no promise; a miss (or an error, through the error handler) later. The
 * route's handler returns nothing: the reply is sent here.
 */
export function sendCached<T>(
  reply: FastifyReply,
  cache: AnswerCache,
  key: string,
  /** The answer's view and what it was made of. */
  compute: () => Promise<{ view: T; deps: readonly string[] }>,
): void {
  const hit = cache.peek(key);
  if (hit) {
    reply.type(JSON_TYPE).send(hit);
    return;
  }
  cache
    .fill(key, async () => {
      const { view, deps } = await compute();
      return { body: Buffer.from(String(reply.serialize(view))), deps };
    })
    .then(
      (body) => reply.type(JSON_TYPE).send(body),
      (error: unknown) => reply.send(error),
    );
}
