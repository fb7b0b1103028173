/** Types of bench/world/seed.mjs, for test/unit/bench-world.test.ts. */
import type { WorldSizes } from "./sizes.mjs";
export interface Caller {
  index: number;
  userId: string;
  apiKey: string;
  userKey: string;
}
export declare function seedWorld(
  database: string,
  world: string | WorldSizes,
  options?: { quiet?: boolean },
): Promise<{ world: WorldSizes; callers: Caller[]; seconds: Record<string, number> }>;
