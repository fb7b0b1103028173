/** Types of bench/many/traffic.mjs, for test/unit/bench-world.test.ts. */
import type { Caller } from "../world/seed.mjs";
import type { WorldSizes } from "../world/sizes.mjs";
export interface SequencedRequest {
  method: string;
  path: string;
  body: string | undefined;
  key: string;
  caller: number;
  pool: number;
  headers: Record<string, string>;
}
/** The shares of the social scenarios' requests that like, comment and post (`--writes`). */
export declare const writeMix: { likes: number; comments: number; posts: number };
export declare function rng(seed: number): () => number;
export declare function zipf(n: number, s: number, random: () => number): () => number;
export declare function feedPageOf(world: WorldSizes, n: number): string;
export declare function socialSequence(
  world: WorldSizes,
  callers: Caller[],
  length: number,
  read: (n: number) => string,
  seed?: number,
): SequencedRequest[];
export declare function pollSequence(callers: Caller[], length: number, seed?: number): SequencedRequest[];
export declare function orderSequence(callers: Caller[], count: number, length: number): SequencedRequest[];
export declare function cursor(
  sequence: SequencedRequest[],
  callers: Caller[],
): (req: Record<string, unknown>) => {
  method: string;
  path: string;
  body: string | undefined;
  headers: Record<string, string>;
};
