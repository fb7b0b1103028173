import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_PATH } from "./services.js";

/**
 * Headless, with no network chatter (the machine has no internet). Playwright gives every launch
 * a fresh, empty profile of its own.
 */
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ARGS });
}

/** Where the page suites' browser comes from; `path` is the executable once it is known. */
export type ChromiumFound = { path: string; from: string } | { path: null; why: string };

/**
 * The browser for the page suites (decision 0084): `CHROMIUM_PATH` (default /usr/bin/chromium,
 * Debian's) when it is there and runs, else the Chromium that `npm install` brought: the
 * devDependency @sparticuz/chromium ships it brotli-compressed for Linux x64, unpacked once per
 * version into the temp directory. A candidate is chosen only after it started and opened a page.
 * Runs once, in global setup.
 */
export async function findChromium(): Promise<ChromiumFound> {
  const reasons: string[] = [];
  if (existsSync(CHROMIUM_PATH)) {
    const failure = await cannotRun(CHROMIUM_PATH);
    if (!failure) return { path: CHROMIUM_PATH, from: CHROMIUM_PATH };
    reasons.push(`${CHROMIUM_PATH} does not run: ${failure}`);
  } else {
    reasons.push(`no chromium at ${CHROMIUM_PATH}`);
  }
  try {
    const bundled = await unpackBundledChromium();
    const failure = await cannotRun(bundled.path);
    if (!failure)
      return { path: bundled.path, from: `${bundled.path} (@sparticuz/chromium ${bundled.version}; ${reasons[0]})` };
    reasons.push(`the Chromium of @sparticuz/chromium does not run: ${failure}`);
  } catch (err) {
    reasons.push(firstLine(err));
  }
  return { path: null, why: reasons.join("; ") };
}

/** Starts the browser and opens a page; the reason it could not, or null. */
async function cannotRun(path: string): Promise<string | null> {
  let browser: Browser | undefined;
  try {
    browser = await launchChromium(path);
    const page = await browser.newPage();
    await page.setContent("<title>ok</title>");
    return (await page.title()) === "ok" ? null : "a page did not load";
  } catch (err) {
    return firstLine(err);
  } finally {
    await browser?.close().catch(() => {});
  }
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n").find((l) => l.trim() !== "") ?? "unknown error";
}

/**
 * Unpacks `bin/chromium.br` of @sparticuz/chromium to `<tmp>/social-trading-api-chromium-<version>-<uid>/chromium`.
 * The package's own `executablePath()` is not used: it unpacks to a fixed `/tmp/chromium` that
 * two concurrent runs race on (one may launch the other's half-written file). Here each run
 * unpacks into a directory of its own and renames it into place, so the directory is complete
 * whenever it exists. The package's fonts and SwiftShader are not needed: the machine's fonts are
 * used, and the pages are drawn without a GPU (--disable-gpu).
 */
async function unpackBundledChromium(): Promise<{ path: string; version: string }> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`@sparticuz/chromium ships Chromium for Linux x64 only, not ${process.platform} ${process.arch}`);
  }
  let root: string;
  try {
    // the package exports no package.json: its CommonJS entry is build/cjs/index.cjs
    root = join(dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..", "..");
  } catch {
    throw new Error("@sparticuz/chromium is not installed (npm install brings it)");
  }
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  const dir = join(tmpdir(), `social-trading-api-chromium-${version}-${process.getuid?.() ?? 0}`);
  const path = join(dir, "chromium");
  if (existsSync(path)) return { path, version };
  const staging = `${dir}.${process.pid}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await pipeline(
      createReadStream(join(root, "bin", "chromium.br")),
      createBrotliDecompress({ chunkSize: 2 ** 21 }),
      createWriteStream(join(staging, "chromium"), { mode: 0o755 }),
    );
    renameSync(staging, dir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    // another run unpacked the same version at the same time: its copy is as good
    if (!existsSync(path)) throw err;
  }
  return { path, version };
}
