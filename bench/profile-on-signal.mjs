// Preloaded into a benchmark's server (`node --import bench/profile-on-signal.mjs`): SIGWINCH (a
// signal the server leaves alone: SIGUSR2 and the like shut it down gracefully) starts
// a CPU profile, the next SIGWINCH writes it to $PROFILE_DIR/<pid>.cpuprofile. So a run profiles its
// measured rounds only, not the start-up and warm-up before them (bench/many.mjs --profile).
import { renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";

const dir = process.env.PROFILE_DIR;
if (!dir) throw new Error("profile-on-signal needs PROFILE_DIR");
const session = new Session();
session.connect();
let running = false;
process.on("SIGWINCH", async () => {
  if (!running) {
    running = true;
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    return;
  }
  running = false;
  const { profile } = await session.post("Profiler.stop");
  // Whole or absent: the runner waits for the name.
  const file = join(dir, `${process.pid}.cpuprofile`);
  writeFileSync(`${file}.part`, JSON.stringify(profile));
  renameSync(`${file}.part`, file);
});
