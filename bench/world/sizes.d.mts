/** Types of bench/world/sizes.mjs, for test/unit/bench-world.test.ts. */
export interface WorldSizes {
  users: number;
  callers: number;
  posts: number;
  likes: number;
  comments: number;
}
export declare const WORLDS: Record<"small" | "default" | "large", WorldSizes>;
export declare const POSTS_PER_AUTHOR: number;
export declare function authorsOf(w: WorldSizes): number;
export declare function postId(n: number): string;
export declare function userId(n: number): string;
export declare function authorOf(w: WorldSizes, n: number): number;
export declare const TAG_INSTRUMENTS: number[];
