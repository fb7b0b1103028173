// Where a many-caller run's world lives (docs/decisions/0167): a fresh SQLite file in a temporary
// folder, or a fresh, uniquely named PostgreSQL database on 127.0.0.1:5432 (BENCH_PG_URL to
// change), dropped afterwards. Nothing shared is touched.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

const ADMIN_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export async function createEngine(kind) {
  // The server's secrets key for the run (PostgreSQL would otherwise generate one under ./data).
  const env = { SECRETS_KEY: randomBytes(32).toString("base64") };
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "sta-many-"));
    return {
      kind,
      database: join(dir, "world.db"),
      env,
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (kind !== "postgres") throw new Error(`unknown engine ${kind}: sqlite or postgres`);
  const name = `sta_bench_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    database: url.toString(),
    env,
    async drop() {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
