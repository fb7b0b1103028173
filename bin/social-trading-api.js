#!/usr/bin/env node
// Thin launcher so `npx social-trading-api` runs the compiled CLI (built by `npm install`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error("social-trading-api is not built yet: run `npm run build` (npm install does it for you).");
  process.exit(1);
}
await import(entry.href);
