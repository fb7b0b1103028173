// The share of a CPU profile's busy samples spent under a function (docs/decisions/0209): every
// sample with a frame whose "name file:line" matches PATTERN in its chain, and where those samples
// were (their own frames), largest first. A share times the CPU per request, over the share of
// requests that call it, prices the function per call.
//   node bench/profile-share.mjs FILE.cpuprofile PATTERN [--top N]
// e.g. node bench/profile-share.mjs /tmp/x.cpuprofile '^withComment ' (profiles from bench/many.mjs
// --profile, bench/social-writes-inproc.mjs --profile or node --cpu-prof).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "20" }, help: { type: "boolean", default: false } },
});
if (values.help || positionals.length !== 2) {
  console.log("usage: node bench/profile-share.mjs FILE.cpuprofile PATTERN [--top N]");
  process.exit(values.help ? 0 : 2);
}
const [file, pattern] = positionals;
const profile = JSON.parse(readFileSync(file, "utf8"));
const matches = new RegExp(pattern);
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parents = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n.id);
const nameOf = (id) => {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  return `${functionName || "(anonymous)"} ${url.replace(/.*\/(dist|node_modules)\//, "$1/")}:${lineNumber + 1}`;
};
const own = new Map();
let busy = 0;
let under = 0;
for (const sample of profile.samples) {
  if (nodes.get(sample).callFrame.functionName === "(idle)") continue;
  busy++;
  let found = false;
  for (let id = sample; id !== undefined && !found; id = parents.get(id)) found = matches.test(nameOf(id));
  if (!found) continue;
  under++;
  own.set(nameOf(sample), (own.get(nameOf(sample)) ?? 0) + 1);
}
const pct = (n) => `${((100 * n) / Math.max(busy, 1)).toFixed(2).padStart(6)}%`;
console.log(`under ${pattern}: ${under} of ${busy} busy samples (${pct(under).trim()})`);
for (const [name, n] of [...own].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${pct(n)}  ${name}`);
}
