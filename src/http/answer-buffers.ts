import type { FastifyReply } from "fastify";

/*
 * Reused buffers for large answers joined from parts (a shared feed page, about 150 KB: decision
 * 0206). Joined into a fresh buffer on every request, such an answer was a fresh allocation of
 * that size: past glibc's mmap and trim thresholds, its pages came from the kernel anew, and
 * faulting them in took a tenth of many-feed's CPU (and its copy a fifth), in the runs where the
 * heap's layout tipped that way. Here a buffer is taken from a free list, filled, sent, and given
 * back once the response is done ('finish', or 'close' when the client went away first): by then
 * the socket has handed every byte to the kernel (or dropped them), so nothing still reads it.
 */

/** Answers smaller than this are joined into a buffer of their own (no pooling is worth it). */
export const POOLED_MIN_BYTES = 32 * 1024;
/** Buffers are made in multiples of this, so a free one fits the next answers of similar size. */
const GRAIN = 64 * 1024;

export class AnswerBuffers {
  private readonly free: Buffer[] = [];
  private keptBytes = 0;

  /** `maxKeptBytes`: free buffers kept beyond this are left to the garbage collector. */
  constructor(private readonly maxKeptBytes: number) {}

  /** A buffer of at least `size` bytes: a free one that fits, else a new one. */
  take(size: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const length = this.free[i]!.length;
      if (length >= size && (best < 0 || length < this.free[best]!.length)) best = i;
    }
    if (best < 0) return Buffer.allocUnsafeSlow(Math.ceil(size / GRAIN) * GRAIN);
    const [buffer] = this.free.splice(best, 1);
    this.keptBytes -= buffer!.length;
    return buffer!;
  }

  /** Gives `buffer` back (only once its answer has been sent). */
  give(buffer: Buffer): void {
    if (this.keptBytes + buffer.length > this.maxKeptBytes) return;
    this.free.push(buffer);
    this.keptBytes += buffer.length;
  }

  /** Free buffers' count and bytes (for tests). */
  stats(): { buffers: number; bytes: number } {
    return { buffers: this.free.length, bytes: this.keptBytes };
  }
}

/** The process's pool: about 50 pages in flight at once, each under 256 KB. */
export const answerBuffers = new AnswerBuffers(8 * 1024 * 1024);

/**
 * Sends `parts` joined as one body through `reply`'s `send` (so every hook and header applies): a
 * large body is joined into a pooled buffer, given back when the response is done.
 */
export function sendJoined(reply: FastifyReply, parts: readonly Buffer[], pool: AnswerBuffers = answerBuffers): void {
  let length = 0;
  for (const part of parts) length += part.length;
  if (length < POOLED_MIN_BYTES) {
    reply.send(Buffer.concat(parts, length));
    return;
  }
  const buffer = pool.take(length);
  let at = 0;
  for (const part of parts) at += part.copy(buffer, at);
  let given = false;
  const giveBack = () => {
    if (given) return;
    given = true;
    pool.give(buffer);
  };
  reply.raw.once("finish", giveBack);
  reply.raw.once("close", giveBack);
  reply.send(buffer.subarray(0, length));
}
