import type { FastifyReply, FastifyRequest } from "fastify";
import { UpstreamError } from "./copy-trading.errors.js";

/** Runs a handler; an UpstreamError becomes its documented answer. */
export async function answering(
  request: FastifyRequest,
  reply: FastifyReply,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    request.log.info({ errorCode: error.errorCode }, error.message);
    await reply
      .status(error.status)
      .send({ errorCode: error.errorCode, errorMessage: error.message, requestId: request.id });
  }
}
