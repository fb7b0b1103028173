import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";

/**
 * The front end `npm run build` bundles into dist/dashboard/ (scripts/build-dashboard.mjs). Found
 * from this file: src/modules/dashboard/ (tests) and dist/modules/dashboard/ (the server) both sit
 * three levels under the package root.
 */
const BUNDLE_DIR = new URL("../../../dist/dashboard/", import.meta.url);

export interface Asset {
  body: Buffer;
  /** A short hash of the content, for the URL's `?v=` (so the asset can be cached for good). */
  version: string;
}

export interface Bundle {
  script: Asset;
  style: Asset;
}

async function asset(name: string): Promise<Asset> {
  const body = await readFile(new URL(name, BUNDLE_DIR));
  return { body, version: createHash("sha256").update(body).digest("hex").slice(0, 16) };
}

/** The bundle, or null when it has not been built (an install without dev dependencies). */
export async function loadBundle(): Promise<Bundle | null> {
  try {
    return { script: await asset("app.js"), style: await asset("app.css") };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
