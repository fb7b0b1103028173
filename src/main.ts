// The `social-trading-api` CLI's entry. For `serve`, V8's heap is sized before the program's
// modules load (docs/decisions/0196: loading them alone grows the young generation); the commands
// are in cli/program.ts.
import { sizeHeapForServer } from "./infra/heap.js";

if (process.argv.slice(2).includes("serve")) sizeHeapForServer(process.execArgv, process.env.NODE_OPTIONS);
await import("./cli/program.js");
