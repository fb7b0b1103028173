import type { KyselyPlugin } from "kysely";
import { expect } from "vitest";
import type { Deps } from "../../src/modules/context.js";
import type { Harness, TestUser } from "../support/harness.js";
import { rid } from "../support/harness.js";

export const RW = ["feed:read", "feed:write"];
/** Seeded catalog instruments (src/modules/market/catalog.ts): AAPL and BTC. */
export const AAPL = 1001;
export const BTC = 100000;

export type Method = "GET" | "POST" | "PUT" | "DELETE";

export function client(h: () => Harness) {
  const call = async (u: TestUser | null, method: Method, url: string, payload?: unknown) =>
    h().app.inject({
      method,
      url,
      headers: { ...(u ? u.headers : {}), "x-request-id": rid() },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  return {
    call,
    async post(u: TestUser, body: Record<string, unknown>): Promise<{ id: string; [k: string]: unknown }> {
      const res = await call(u, "POST", "/api/v1/posts", body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    },
    async poll(u: TestUser, options = ["Up", "Down"]): Promise<PollPost> {
      const res = await call(u, "POST", "/api/v1/posts/polls", {
        message: "Where next?",
        poll: { title: "Direction", options: options.map((text, i) => ({ text, index: i + 1 })) },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    },
    async ok(u: TestUser | null, method: Method, url: string, payload?: unknown, status = 200) {
      const res = await call(u, method, url, payload);
      expect(res.statusCode, res.body).toBe(status);
      return res.statusCode === 204 || res.statusCode === 202 ? null : res.json();
    },
  };
}

export interface PollPost {
  id: string;
  metadata: {
    poll: { id: number; options: { id: number; index: number; votesCount: number; isUserVoted: boolean }[] };
  };
}

/**
 * Deps whose store counts the queries run through it (as results: a prepared query,
 * infra/db/prepared.ts, is compiled once, then only run).
 */
export function countingQueries(deps: Deps): { deps: Deps; take(): number } {
  let queries = 0;
  const counting: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      queries += 1;
      return args.result;
    },
  };
  return {
    deps: { ...deps, db: { ...deps.db, kysely: deps.db.kysely.withPlugin(counting) } },
    /** The count since the last call. */
    take() {
      const n = queries;
      queries = 0;
      return n;
    },
  };
}
