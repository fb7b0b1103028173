#!/usr/bin/env node
// Where a scenario's server spends its CPU: `npm run build && node bench/profile.mjs <scenario>
// [--duration S] [--connections C] [--top N]`. Starts the server under `--cpu-prof`, loads it with the
// scenario's request, stops it and prints the functions with the most self time (and the files they
// are in), then the path of the .cpuprofile (open it in Chrome DevTools for the full picture).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { load, profileSummary, startApp } from "./lib.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: "string", default: "6" },
    connections: { type: "string", default: "50" },
    top: { type: "string", default: "30" },
  },
});
if (positionals.length !== 1) {
  console.error("usage: node bench/profile.mjs <scenario> [--duration S] [--connections C] [--top N]");
  process.exit(2);
}
const scenario = (await import(`./scenarios/${positionals[0]}.mjs`)).default;
const profDir = mkdtempSync(join(tmpdir(), "sta-profile-"));
const app = await startApp(scenario.env ?? {}, ["--cpu-prof", `--cpu-prof-dir=${profDir}`]);
let result;
try {
  const request = await scenario.prepare(app);
  await load(app.baseUrl, request, { duration: 2, connections: Number(values.connections) });
  result = await load(app.baseUrl, request, {
    duration: Number(values.duration),
    connections: Number(values.connections),
    pid: app.pid,
  });
} finally {
  await app.stop();
}
const [busy, ...lines] = profileSummary(profDir, Number(values.top));
console.log(`${scenario.name}: ${result.rps.toFixed(0)} req/s; ${busy}`);
for (const line of lines) console.log(line);
