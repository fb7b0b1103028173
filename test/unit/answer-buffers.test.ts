import { once } from "node:events";
import { get, type IncomingMessage } from "node:http";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AnswerBuffers, POOLED_MIN_BYTES, sendJoined } from "../../src/http/answer-buffers.js";

/*
 * Large answers joined into reused buffers (decision 0206): a buffer goes back to the pool only
 * once its response is done, so answers sent at the same time over real sockets never share bytes.
 */
describe("answer buffers", () => {
  it("takes the smallest free buffer that fits, and keeps no more than its bound", () => {
    const pool = new AnswerBuffers(400 * 1024);
    const small = pool.take(70 * 1024);
    const large = pool.take(200 * 1024);
    expect(small.length).toBe(128 * 1024);
    expect(large.length).toBe(256 * 1024);
    pool.give(large);
    pool.give(small);
    expect(pool.stats()).toEqual({ buffers: 2, bytes: 384 * 1024 });
    expect(pool.take(100 * 1024)).toBe(small);
    expect(pool.take(100 * 1024)).toBe(large);
    expect(pool.stats()).toEqual({ buffers: 0, bytes: 0 });
    // Past the bound, a buffer given back is left to the garbage collector.
    pool.give(large);
    pool.give(pool.take(300 * 1024));
    expect(pool.stats()).toEqual({ buffers: 1, bytes: 256 * 1024 });
  });

  describe("over real sockets", () => {
    const pool = new AnswerBuffers(64 * 1024 * 1024);
    const app = Fastify();
    let base = "";
    // Each answer: its id's byte repeated, in parts, over 150 KB (pooled) or 1 KB (not pooled).
    const partsOf = (id: number, size: number) => {
      const part = Buffer.alloc(size / 4, id % 251);
      return [part, part, part, part];
    };
    beforeAll(async () => {
      app.get<{ Params: { id: string; size: string } }>("/answer/:id/:size", (request, reply) => {
        sendJoined(
          reply.type("application/octet-stream"),
          partsOf(Number(request.params.id), Number(request.params.size)),
          pool,
        );
      });
      base = await app.listen({ port: 0, host: "127.0.0.1" });
    });
    afterAll(() => app.close());

    it("sends every answer whole and unmixed while many are in flight, and reuses their buffers", async () => {
      const size = 150 * 1024;
      expect(size).toBeGreaterThan(POOLED_MIN_BYTES);
      for (let wave = 0; wave < 3; wave++) {
        const ids = Array.from({ length: 40 }, (_, i) => wave * 40 + i + 1);
        const bodies = await Promise.all(
          ids.map(async (id) => Buffer.from(await (await fetch(`${base}/answer/${id}/${size}`)).arrayBuffer())),
        );
        for (const [i, body] of bodies.entries()) {
          expect(body.length).toBe(size);
          expect(body.equals(Buffer.concat(partsOf(ids[i]!, size)))).toBe(true);
        }
      }
      // The buffers came back once their answers were sent (at most the 40 of one wave in flight).
      const { buffers, bytes } = pool.stats();
      expect(buffers).toBeGreaterThan(0);
      expect(buffers).toBeLessThanOrEqual(40);
      expect(bytes).toBe(buffers * 192 * 1024);
    });

    it("keeps a buffer until its answer is sent, however slowly its client reads", async () => {
      // Larger than the sockets' buffers: most of the slow answer waits in the server's queue.
      const size = 24 * 1024 * 1024;
      const slow = await new Promise<IncomingMessage>((resolve) => get(`${base}/answer/1/${size}`, resolve));
      slow.pause();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const fast = Buffer.from(await (await fetch(`${base}/answer/2/${size}`)).arrayBuffer());
      expect(fast.equals(Buffer.concat(partsOf(2, size)))).toBe(true);
      const chunks: Buffer[] = [];
      slow.on("data", (chunk: Buffer) => chunks.push(chunk));
      slow.resume();
      await once(slow, "end");
      expect(Buffer.concat(chunks).equals(Buffer.concat(partsOf(1, size)))).toBe(true);
      // Both buffers come back once their answers are done.
      await vi.waitFor(() => expect(pool.stats().bytes).toBeGreaterThanOrEqual(2 * size));
    });

    it("joins a small answer without the pool", async () => {
      const before = pool.stats();
      const body = Buffer.from(await (await fetch(`${base}/answer/7/1024`)).arrayBuffer());
      expect(body.equals(Buffer.concat(partsOf(7, 1024)))).toBe(true);
      expect(pool.stats()).toEqual(before);
    });
  });
});
