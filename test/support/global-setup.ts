import { Socket } from "node:net";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { findChromium } from "./chromium.js";
import { PG_ADMIN_URL, REDIS_TEST_URL } from "./services.js";

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
  const [postgres, redis, chromium] = await Promise.all([postgresUp(), redisUp(), findChromium()]);
  const services = { postgres, redis, chromium: chromium.path !== null };
  const missing = [
    ...(postgres ? [] : [`postgres: no postgres at ${PG_ADMIN_URL}`]),
    ...(redis ? [] : [`redis: no redis at ${REDIS_TEST_URL}`]),
    ...(chromium.path === null ? [`chromium: ${chromium.why}`] : []),
  ];
  if (missing.length > 0 && process.env.CI === "true") {
    throw new Error(`CI=true but these test services are missing (see .ci/run): ${missing.join("; ")}`);
  }
  for (const line of missing) console.log(line.replace(": ", " suite not run: "));
  if (chromium.path !== null) console.log(`chromium suites run on ${chromium.from}`);
  project.provide("services", services);
  project.provide("chromiumPath", chromium.path);
}
