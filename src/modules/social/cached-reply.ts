import type { FastifyReply } from "fastify";
import type { Answer, SocialReadCache } from "./read-cache.js";

/**
 * Sends a read's 200 answer through the read cache: the body is what the route's own response
 * serializer makes of the view, so a cached answer is byte for byte the one computed.
 */
export async function sendCached<T>(
  reply: FastifyReply,
  cache: SocialReadCache,
  key: string,
  compute: () => Promise<Answer<T>>,
): Promise<FastifyReply> {
  const body = await cache.get(key, async () => {
    const { view, deps } = await compute();
    return { body: Buffer.from(String(reply.serialize(view))), deps };
  });
  return reply.type("application/json; charset=utf-8").send(body);
}
