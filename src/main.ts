// The `social-trading-api` CLI's entry. For `serve`, V8's heap is sized before the commands'
// modules load (docs/decisions/0196: loading them alone grows the young generation); only the
// configuration module, the one reader of the environment, comes first. The commands are in
// cli/program.ts.
import { nodeOptionsOf } from "./config.js";
import { sizeHeapForServer } from "./infra/heap.js";

if (process.argv.slice(2).includes("serve")) sizeHeapForServer(process.execArgv, nodeOptionsOf());
await import("./cli/program.js");
