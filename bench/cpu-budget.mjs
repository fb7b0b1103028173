#!/usr/bin/env node
// What a ratio target costs in CPU on this machine (docs/decisions/0201). The many-caller targets
// are ratios against a plain node:http server answering the same bytes (bench/many.mjs). This runs
// that same plain server several times over, each copy spending a fixed CPU time per request in a
// busy loop before it answers (`--burn`, µs), loads every copy with the same autocannon load in
// alternating rounds, and reports each one's share of the copy that spends nothing: the ratio a
// server reaches when its own work per request is that long, measured in this run. The load
// generator shares the machine's cores with the server, so the sends and wake-ups of a slower
// server cost more; "beyond the work" is the server's CPU per request less its burn.
// usage: node bench/cpu-budget.mjs [--burn 0,25,50,75,100,150] [--bytes 9141] [--connections 50]
//        [--duration S] [--rounds N] [--targets 0.4,0.25,0.5]
import { parseArgs } from "node:util";
import { load, median, startBaseline } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    burn: { type: "string", default: "0,25,50,75,100,150" },
    bytes: { type: "string", default: "9141" },
    connections: { type: "string", default: "50" },
    duration: { type: "string", default: "5" },
    rounds: { type: "string", default: "2" },
    targets: { type: "string", default: "0.4,0.25,0.5" },
    help: { type: "boolean", default: false },
  },
});
const list = (text) => text.split(",").map(Number);
const burns = list(values.burn);
const targets = list(values.targets);
const bytes = Number(values.bytes);
const opts = { connections: Number(values.connections), duration: Number(values.duration) };
const rounds = Number(values.rounds);
const bad = (xs) => xs.some((x) => !(x >= 0));
if (values.help || bad(burns) || bad(targets) || !(bytes > 0) || !(opts.connections > 0) || !(rounds > 0)) {
  console.log(
    "usage: node bench/cpu-budget.mjs [--burn 0,25,50,75,100,150] [--bytes 9141] [--connections 50] [--duration S] [--rounds N] [--targets 0.4,0.25,0.5]",
  );
  process.exit(values.help ? 0 : 2);
}
if (!burns.includes(0)) burns.unshift(0);
const log = (s) => process.stderr.write(`${s}\n`);

// A JSON body of the size asked for (a post document is about 9 KB, a 20-post feed page 150 KB).
const body = Buffer.from(JSON.stringify({ text: "x".repeat(Math.max(0, bytes - 11)) }));
const response = { status: 200, contentType: "application/json; charset=utf-8", body: body.toString("base64") };
const servers = [];
try {
  for (const burn of burns) servers.push({ burn, server: await startBaseline(response, burn), runs: [] });
  const request = { method: "GET", path: "/" };
  for (const s of servers) await load(s.server.baseUrl, request, { ...opts, duration: 1, pid: s.server.pid });
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? servers : [...servers].reverse();
    for (const s of order) {
      log(`round ${i + 1}/${rounds}: ${s.burn} µs of work per request…`);
      s.runs.push(await load(s.server.baseUrl, request, { ...opts, pid: s.server.pid }));
    }
  }
} finally {
  for (const s of servers) await s.server.stop();
}

const rows = servers.map((s) => ({
  burn: s.burn,
  rps: median(s.runs.map((r) => r.rps)),
  cpu: median(s.runs.map((r) => r.cpuUsPerRequest)),
  p99: median(s.runs.map((r) => r.p99)),
}));
const zero = rows.find((r) => r.burn === 0);
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
console.log(
  `\nplain server, ${body.length}-byte answers, ${opts.connections} connections, ${rounds} rounds of ${opts.duration}s (medians)`,
);
console.log(
  `${"work µs".padStart(8)}${"req/s".padStart(9)}${"ratio".padStart(8)}${"CPU µs".padStart(8)}${"beyond".padStart(8)}${"p99 ms".padStart(8)}`,
);
for (const r of rows) {
  console.log(
    `${String(r.burn).padStart(8)}${fmt(r.rps).padStart(9)}${`${fmt((100 * r.rps) / zero.rps, 1)}%`.padStart(8)}${fmt(r.cpu).padStart(8)}${fmt(r.cpu - r.burn).padStart(8)}${fmt(r.p99, 1).padStart(8)}`,
  );
}
// The work per request at which the ratio falls to each target, between the two measured points
// around it (straight line); beyond the last point it is not known.
for (const t of targets) {
  const ratio = (r) => r.rps / zero.rps;
  const sorted = [...rows].sort((a, b) => a.burn - b.burn);
  const after = sorted.findIndex((r) => ratio(r) < t);
  let text;
  if (after < 0) text = `above ${sorted.at(-1).burn} µs (every measured point reached it)`;
  else if (after === 0) text = "none (even the server doing nothing missed it)";
  else {
    const [a, b] = [sorted[after - 1], sorted[after]];
    const at = a.burn + ((ratio(a) - t) / (ratio(a) - ratio(b))) * (b.burn - a.burn);
    text = `about ${fmt(at)} µs of work per request`;
  }
  console.log(`ratio ${fmt(t * 100)}%: ${text}`);
}
