/** Types of bench/world/engines.mjs, for test/unit/bench-world.test.ts. */
export interface BenchEngine {
  kind: "sqlite" | "postgres";
  database: string;
  env: Record<string, string>;
  drop(): Promise<void>;
}
export declare function createEngine(kind: string): Promise<BenchEngine>;
