// Preloaded into a benchmark's server to see where its resident memory goes (docs/decisions/0196):
//   NODE_OPTIONS="--import ./bench/memory-probe.mjs" PROBE_DIR=/tmp/probe node bench/many.mjs …
// In each `serve` process it samples process.memoryUsage() and V8's heap spaces every 50 ms, keeps
// the sample of the highest RSS (with /proc/self/smaps summed by mapping at most once a second),
// the maximum of each figure and when the young generation changed size; it writes them to
// $PROBE_DIR/<pid>.json at exit and on SIGWINCH. `node bench/memory-probe.mjs FILE…` prints them.

import { readFileSync, writeFileSync } from "node:fs";
import v8 from "node:v8";

if (process.argv.includes("serve") && process.env.PROBE_DIR) {
  const dir = process.env.PROBE_DIR;
  let peak = null;
  let lastSmaps = 0;
  let peakSmaps = null;
  const smaps = () => {
    const out = {};
    let name = "";
    for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
      const h = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (h) {
        name = h[1] || "[anon]";
        if (name.includes("/")) name = name.split("/").pop();
        continue;
      }
      if (line.startsWith("Rss:")) out[name] = (out[name] ?? 0) + Number(line.replace(/\D+/g, "")) / 1024;
    }
    return Object.fromEntries(
      Object.entries(out)
        .filter(([, v]) => v > 0.5)
        .sort((a, b) => b[1] - a[1]),
    );
  };
  const started = Date.now();
  let lastNew = 0;
  const changes = [];
  const max = {};
  const sample = () => {
    const m = process.memoryUsage();
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
    );
    const h = v8.getHeapStatistics();
    const s = { at: Date.now(), ...m, spaces, malloced: h.malloced_memory };
    for (const k of ["rss", "heapTotal", "heapUsed", "external", "arrayBuffers", "malloced"])
      max[k] = Math.max(max[k] ?? 0, s[k]);
    for (const [k, v] of Object.entries(spaces)) max[`space:${k}`] = Math.max(max[`space:${k}`] ?? 0, v.size);
    if (!peak || m.rss > peak.rss) {
      peak = s;
      if (s.at - lastSmaps > 1000) {
        lastSmaps = s.at;
        peakSmaps = smaps();
      }
    }
    if (spaces.new_space.size !== lastNew) {
      lastNew = spaces.new_space.size;
      changes.push([Date.now() - started, lastNew / 2 ** 20]);
    }
    return s;
  };
  setInterval(sample, 50).unref();
  const write = () => {
    const now = sample();
    writeFileSync(
      `${dir}/${process.pid}.json`,
      JSON.stringify(
        {
          argv: process.argv,
          started,
          now,
          peak,
          max,
          newSpaceChanges: changes,
          peakSmaps,
          threads: readFileSync("/proc/self/status", "utf8").match(/Threads:\s+(\d+)/)?.[1],
        },
        null,
        1,
      ),
    );
  };
  process.on("SIGWINCH", write);
  process.on("exit", write);
}

if (process.argv[1]?.endsWith("memory-probe.mjs")) {
  const M = (x) => (x / 2 ** 20).toFixed(1);
  for (const f of process.argv.slice(2)) {
    const j = JSON.parse(readFileSync(f, "utf8"));
    const p = j.peak;
    const spaces = Object.entries(p.spaces)
      .filter(([, v]) => v.size > 1e5)
      .map(([k, v]) => `${k.replace("_space", "")} ${M(v.size)}/${M(v.used)}`);
    console.log(
      `${f}: ${j.argv.slice(2).join(" ")}, ${((j.now.at - j.started) / 1000).toFixed(0)} s, ${j.threads} threads`,
    );
    console.log(
      `  at peak rss ${M(p.rss)} MB: heap ${M(p.heapTotal)} committed, ${M(p.heapUsed)} used (${spaces.join(", ")}); external ${M(p.external)}, array buffers ${M(p.arrayBuffers)}`,
    );
    console.log(`  smaps at peak (MB): ${JSON.stringify(j.peakSmaps)}`);
    console.log(`  young generation (ms → MB): ${JSON.stringify(j.newSpaceChanges)}`);
  }
}
