import { existsSync } from "node:fs";
import { Socket } from "node:net";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { CHROMIUM_PATH, PG_ADMIN_URL, REDIS_TEST_URL } from "./services.js";

async function postgresUp(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisUp(): Promise<boolean> {
  const url = new URL(REDIS_TEST_URL);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once("error", () => done(false));
    socket.connect(Number(url.port || 6379), url.hostname, () => {
      socket.write("PING\r\n");
      socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
    });
  });
}

export default async function setup(project: TestProject) {
  const services = { postgres: await postgresUp(), redis: await redisUp(), chromium: existsSync(CHROMIUM_PATH) };
  const missing = Object.entries(services)
    .filter(([, up]) => !up)
    .map(([name]) => name);
  if (missing.length > 0) {
    if (process.env.CI === "true") {
      throw new Error(`CI=true but these test services are missing: ${missing.join(", ")} (see .ci/run)`);
    }
    for (const name of missing) {
      const where = name === "postgres" ? PG_ADMIN_URL : name === "redis" ? REDIS_TEST_URL : CHROMIUM_PATH;
      console.log(`${name} suite not run: no ${name} at ${where}`);
    }
  }
  project.provide("services", services);
}
