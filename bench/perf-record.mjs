// Linux perf over a benchmark's server (bench/many.mjs --perf; decision 0201): CPU-time samples
// (`cpu-clock`, which works where hardware counters do not) of every thread of one process, with
// the JavaScript named through Node's --perf-basic-prof-only-functions map. Unlike V8's profiler,
// whose samples pile up on the system call a thread has just come back from, perf charges the
// kernel's work where it is done.
import { spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";

/** The Node option that writes /tmp/perf-<pid>.map, so perf can name JIT-compiled functions. */
export const PERF_NODE_ARGS = ["--perf-basic-prof-only-functions"];

/** Why perf cannot record here, or undefined when it can. */
export function perfMissing() {
  const probe = spawnSync("perf", ["stat", "-e", "cpu-clock", "true"], { encoding: "utf8" });
  if (probe.error) return "perf is not installed (Debian: linux-perf)";
  if (probe.status !== 0) return `perf cannot count cpu-clock here: ${probe.stderr.trim().split("\n").at(-1)}`;
  return undefined;
}

/** Starts recording `pid`'s threads into `file`; `stop()` ends the recording and waits for perf. */
export function startPerf(pid, file) {
  const child = spawn("perf", ["record", "-e", "cpu-clock", "-F", "999", "-g", "-p", String(pid), "-o", file], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (c) => (err += c));
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    async stop() {
      child.kill("SIGINT");
      const code = await exited;
      if (code !== 0 && code !== null) throw new Error(`perf record failed (${code}): ${err.trim()}`);
    },
  };
}

/**
 * Lines to print: the share of the samples in the kernel, in `writev` and in `read` (by call
 * chain), then the `top` symbols by self samples. Removes the recording and the process's map file.
 */
export function perfSummary(file, pid, top) {
  try {
    const script = spawnSync("perf", ["script", "-i", file, "-F", "tid,ip,sym,dso"], {
      encoding: "utf8",
      maxBuffer: 1 << 30,
    });
    const samples = script.stdout.split("\n\n").filter((s) => s.trim());
    const pct = (n) => `${((100 * n) / samples.length).toFixed(1)}%`;
    const share = (re) => pct(samples.filter((s) => re.test(s)).length);
    // Inclusive shares: a sample counts when any frame of its chain is in SQLite or the collector.
    const sqlite = share(/better_sqlite3\.node/);
    const gc = share(
      /v8::internal::(Heap::|Scavenger|ScavengerCollector|MarkCompact|ConcurrentMarking|Sweeper|MinorMarkSweep)/,
    );
    // A sample's first line is its thread id; then its frames, innermost first. A sample is the
    // kernel's when its innermost frame is.
    const kernel = pct(samples.filter((s) => s.trim().split("\n")[1]?.includes("[kernel")).length);
    // The main thread's id is the process's; the others are V8's helpers (concurrent marking,
    // compiling), libuv's pool and the checkpointer (decision 0207).
    const others = pct(samples.filter((s) => s.trim().split(/\s/)[0] !== String(pid)).length);
    const bySym = spawnSync(
      "perf",
      ["report", "-i", file, "--no-children", "--sort", "sym", "--stdio", "-g", "none", "--percent-limit", "0.3"],
      { encoding: "utf8", maxBuffer: 1 << 28 },
    );
    const lines = bySym.stdout
      .split("\n")
      .filter((l) => l.trim() && !l.startsWith("#"))
      .slice(0, top)
      .map((l) => l.replace(/\s+$/, ""));
    return [
      `perf: ${samples.length} CPU samples of the app; system calls by call chain: writev ${share(/do_writev|sys_writev/)}, read ${share(/ksys_read|sys_read\b/)}; all the kernel's work: ${kernel}; threads other than the main one: ${others}; SQLite (with its system calls): ${sqlite}; garbage collection: ${gc}`,
      ...lines,
    ];
  } finally {
    rmSync(file, { force: true });
    rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
}
