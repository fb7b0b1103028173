import type { FastifyReply } from "fastify";
import { sendJoined } from "./answer-buffers.js";

/** A cache of answers' bytes (src/modules/social/shared/read-cache.ts is one). */
export interface AnswerCache {
  peek(key: string): Buffer | undefined;
  fill(key: string, compute: () => Promise<{ body: Buffer; deps: readonly string[] }>): Promise<Buffer>;
}

/**
 * A route's reply narrowed to its 200 answer (`reply.code(200)`): what it may send is the Static
 * type of the route's 200 schema, so a view of any other shape does not compile.
 */
export interface OkReply<View> {
  send(payload: View): unknown;
}

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Sends a read's 200 answer through the read cache: the body is what the route's own response
 * serializer makes of the view, so a cached answer is byte for byte the one computed. A hit is
 * sent at once, with no promise; a miss (or an error, through the error handler) later. The
 * route's handler returns nothing: the reply is sent here.
 */
export function sendCached<View>(
  ok: OkReply<View>,
  cache: AnswerCache,
  key: string,
  /** The answer's view (of the route's 200 schema) and what it was made of. */
  compute: () => Promise<{ view: NoInfer<View>; deps: readonly string[] }>,
): void {
  // The bytes are the 200 schema's serialization of a View: sent as they are.
  const reply = ok as unknown as FastifyReply;
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

/**
 * Hands an error met before `sendCached` could run (a key still being worked out) to the route's
 * error handler: a typed reply's `send` takes its schemas' bodies only.
 */
export function sendFailure(reply: unknown, error: unknown): void {
  (reply as FastifyReply).send(error);
}

/** Sends a 200 answer's bytes made elsewhere from the route's own serializer (shared documents). */
export function sendBytes(reply: unknown, body: Buffer): void {
  (reply as FastifyReply).type(JSON_TYPE).send(body);
}

/**
 * Sends a 200 answer made elsewhere from the route's own serializer as parts (a shared feed page),
 * joined: a large one into a reused buffer, given back once it is sent (decision 0206).
 */
export function sendParts(reply: unknown, parts: readonly Buffer[]): void {
  sendJoined((reply as FastifyReply).type(JSON_TYPE), parts);
}

/**
 * Sends bytes made from the route's own serializer at once when they are at hand (no promise on a
 * cache hit), or when they come (a failure goes to the route's error handler).
 */
export function sendBytesWhenReady(reply: unknown, body: Buffer | Promise<Buffer>): void {
  if (Buffer.isBuffer(body)) sendBytes(reply, body);
  else
    body.then(
      (bytes) => sendBytes(reply, bytes),
      (error: unknown) => sendFailure(reply, error),
    );
}
