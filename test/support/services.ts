/**
 * Which real servers the suites run against. Locally a missing server means its suite is not
 * run (said in one line); under CI=true a missing server fails the run.
 */
export const PG_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const REDIS_TEST_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/**
 * The browser for the page suites when it is there and runs; otherwise they run on the Chromium
 * that `npm install` brought (test/support/chromium.ts, decision 0084).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

export interface Availability {
  postgres: boolean;
  redis: boolean;
  chromium: boolean;
}

declare module "vitest" {
  export interface ProvidedContext {
    services: Availability;
    /** The Chromium executable global setup found running, or null. */
    chromiumPath: string | null;
  }
}
