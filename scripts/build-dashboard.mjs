#!/usr/bin/env node
/**
 * Bundles the dashboard's front end (web/dashboard/) into dist/dashboard/ with esbuild: one script
 * (preact + lightweight-charts + our sources) and the stylesheet it imports (app.css), served by the server at
 * /dashboard (decision 0153). Part of `npm run build`, `prestart` and `pretest`.
 *
 * Skips the work when nothing it reads changed since the last bundle (the sources, this script and
 * the lock file, hashed into dist/dashboard/inputs.sha256), like `tsc -b` does (decision 0085).
 * Without esbuild (an install without dev dependencies) it says so in one line and leaves the
 * dashboard unbuilt: the server then answers /dashboard with a page saying how to build it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "web", "dashboard");
const out = join(root, "dist", "dashboard");
const stampFile = join(out, "inputs.sha256");
const force = process.argv.includes("--force");

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

function inputsHash() {
  const hash = createHash("sha256");
  const inputs = [...filesUnder(source), fileURLToPath(import.meta.url), join(root, "package-lock.json")].sort();
  for (const file of inputs) {
    if (!existsSync(file)) continue;
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

const stamp = inputsHash();
if (
  !force &&
  existsSync(stampFile) &&
  readFileSync(stampFile, "utf8") === stamp &&
  existsSync(join(out, "app.js")) &&
  existsSync(join(out, "app.css"))
) {
  process.exit(0);
}

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  console.warn("dashboard: esbuild is not installed (dev dependencies were omitted); /dashboard stays unbuilt");
  process.exit(0);
}

// Built aside and renamed into place: two builds at once (two test files, two work trees sharing
// nothing but this folder) never serve or leave a half-written bundle.
const staging = `${out}.${process.pid}.partial`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
try {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: "web/dashboard/main.tsx" },
    outdir: staging,
    entryNames: "[name]",
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome110", "firefox115", "safari16"],
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    tsconfig: "web/dashboard/tsconfig.json",
    legalComments: "eof",
    logLevel: "warning",
  });
  writeFileSync(join(staging, "inputs.sha256"), stamp);
  rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
} catch (error) {
  rmSync(staging, { recursive: true, force: true });
  // another build renamed the same bundle into place first: its copy is as good
  if (!(existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp)) throw error;
}
