#!/usr/bin/env node
// Where a scenario's server spends its CPU: `npm run build && node bench/profile.mjs <scenario>
// [--duration S] [--connections C] [--top N]`. Starts the server under `--cpu-prof`, loads it with the
// scenario's request, stops it and prints the functions with the most self time (and the files they
// are in), then the path of the .cpuprofile (open it in Chrome DevTools for the full picture).
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { load, startApp } from "./lib.mjs";

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
const file = join(
  profDir,
  readdirSync(profDir).find((f) => f.endsWith(".cpuprofile")),
);
const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(nodes.map((n) => [n.id, n]));
const self = new Map();
let total = 0;
for (let i = 0; i < samples.length; i++) {
  const n = byId.get(samples[i]);
  const { functionName, url, lineNumber } = n.callFrame;
  const key = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(dist|src)\//, "$1/")}:${lineNumber + 1}`;
  const dt = timeDeltas[i] ?? 0;
  self.set(key, (self.get(key) ?? 0) + dt);
  total += dt;
}
const idle = [...self].filter(([k]) => k.startsWith("(idle)")).reduce((a, [, v]) => a + v, 0);
console.log(
  `${scenario.name}: ${result.rps.toFixed(0)} req/s; busy ${(((total - idle) / total) * 100).toFixed(0)}% of the profile`,
);
console.log("self %busy  function");
for (const [k, v] of [...self]
  .filter(([k]) => !k.startsWith("(idle)"))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(values.top)))
  console.log(`${((v / (total - idle)) * 100).toFixed(1).padStart(10)}  ${k}`);
console.log(`profile: ${file}`);
