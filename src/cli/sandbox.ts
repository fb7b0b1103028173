import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { type Config, loadConfig } from "../config.js";
import { systemActor } from "../core/actor.js";
import { AppError, ERROR_STATUS, type ErrorCode } from "../core/errors.js";
import { type Ctx, type Deps, withActor } from "../modules/context.js";
import { createKeyPair, listKeyPairs, revokeKeyPair } from "../modules/identity/key-pairs.js";
import { generatedKeyPath } from "../runtime.js";
import { DEMO_USERNAME } from "../seed/seed.js";
import { makeOutput, type Output } from "./output.js";

type WithStore = (cmd: Command, work: (ctx: Ctx, out: Output, deps: Deps) => Promise<void>) => Promise<void>;

/** The app name of the operator's key pairs `serve` and `sandbox operator-key` make. */
export const OPERATOR_APP = "sandbox operator";
const OPERATOR_FILE = "sandbox-operator.json";

export interface OperatorCredentials {
  id: string;
  apiKey: string;
  userKey: string;
  user: string;
}

/**
 * Where the operator's key pair is kept for the `sandbox` commands: beside the SQLite store (the
 * data folder for PostgreSQL), as the generated secrets key is; none for a `:memory:` store.
 */
export function operatorFile(config: Config): string | undefined {
  const beside = generatedKeyPath(config);
  return beside ? join(dirname(beside), OPERATOR_FILE) : undefined;
}

/**
 * A new operator key pair for `user` (decision 0149), revoking the earlier ones of that user made
 * the same way, so restarts do not pile up live operator credentials; written owner-only to the
 * operator file when there is one.
 */
export async function issueOperatorKey(deps: Deps, user: string = DEMO_USERNAME): Promise<OperatorCredentials> {
  const ctx = withActor(deps, systemActor("sandbox"));
  for (const earlier of await listKeyPairs(ctx, user)) {
    if (earlier.appName === OPERATOR_APP && earlier.revokedAt === null) await revokeKeyPair(ctx, earlier.id);
  }
  const issued = await createKeyPair(ctx, { user, scopes: [], operator: true, appName: OPERATOR_APP });
  const credentials = { id: issued.id, apiKey: issued.apiKey, userKey: issued.userKey, user: issued.username };
  const file = operatorFile(deps.config);
  if (file) {
    writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return credentials;
}

interface RemoteOptions {
  url?: string;
  apiKey?: string;
  userKey?: string;
  json?: boolean;
  database?: string;
}

/** The server and the operator's key pair a `sandbox` command talks to: flags, then env, then the operator file. */
function remoteOf(cmd: Command) {
  const o = cmd.optsWithGlobals<RemoteOptions>();
  const out = makeOutput(Boolean(o.json));
  const config = loadConfig(undefined, { database: o.database }, { logLevel: "warn" });
  const client = config.sandbox.client;
  const url = (o.url ?? client.url ?? `http://127.0.0.1:${config.port}`).replace(/\/+$/, "");
  let apiKey = o.apiKey ?? client.apiKey;
  let userKey = o.userKey ?? client.userKey;
  if (!apiKey || !userKey) {
    const file = operatorFile(config);
    let saved: OperatorCredentials | undefined;
    try {
      saved = file ? (JSON.parse(readFileSync(file, "utf8")) as OperatorCredentials) : undefined;
    } catch {
      saved = undefined;
    }
    if (!saved) {
      throw new AppError(
        "Unauthorized",
        `No operator key pair: give --api-key and --user-key (or SANDBOX_API_KEY and SANDBOX_USER_KEY), or make one with \`sandbox operator-key\`${file ? ` (kept in ${resolve(file)})` : ""}`,
      );
    }
    apiKey = saved.apiKey;
    userKey = saved.userKey;
  }
  const send = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(`${url}${path}`, {
        method,
        headers: {
          "x-api-key": apiKey as string,
          "x-user-key": userKey as string,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      throw new AppError(
        "ServiceUnavailable",
        `Cannot reach the server at ${url} (--url or SANDBOX_URL): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!res.ok) {
      const code = String(parsed.errorCode ?? "GeneralError");
      const details = Array.isArray(parsed.details)
        ? (parsed.details as { field: string; message: string }[]).map((d) => ` ${d.field}: ${d.message}`).join(";")
        : "";
      const known = code in ERROR_STATUS ? (code as ErrorCode) : "GeneralError";
      if (res.status === 404 && code === "NotFound" && String(parsed.errorMessage).startsWith("No operation")) {
        throw new AppError("NotFound", `${url} has no sandbox (SANDBOX=off there, or not this server)`);
      }
      throw new AppError(known, `${String(parsed.errorMessage ?? res.statusText)}${details}`);
    }
    return parsed;
  };
  return { out, send };
}

const positiveNumber = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("a number above 0");
  return n;
};
const wholeNumber = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("a whole number");
  return Number(value);
};
const instrumentIds = (value: string, previous: number[] = []) => [...previous, wholeNumber(value)];

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
/** `90`, `90s`, `15m`, `2h`, `7d` → seconds. */
export function durationSeconds(value: string): number {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(value.trim());
  if (!match) throw new InvalidArgumentError("a duration: seconds, or a number with s, m, h or d (90s, 15m, 2h, 7d)");
  return Number(match[1]) * UNITS[(match[2] || "s").toLowerCase()]!;
}

type Quote = { instrumentId: number; bid: number; ask: number; mid: number; date: string; priceRateId: number };
const quoteLine = (q: Quote) => `${q.instrumentId}: bid ${q.bid}  ask ${q.ask}  (tick ${q.priceRateId}, ${q.date})`;
type MarketState = {
  step: number;
  allPaused: boolean;
  paused: number[];
  scripted: { instrumentId: number; queued: number }[];
};
const marketLines = (m: MarketState) =>
  [
    `tick ${m.step}; ${m.allPaused ? "everything paused" : m.paused.length ? `paused: ${m.paused.join(", ")}` : "nothing paused"}`,
    ...m.scripted.map((s) => `  ${s.instrumentId}: ${s.queued} scripted price(s) queued`),
  ].join("\n");
type Clock = { now: string; offsetMs: number; frozen: boolean };
const clockLine = (c: Clock) =>
  `${c.now}${c.frozen ? " (frozen)" : ""}${c.offsetMs !== 0 ? `, ${Math.round(c.offsetMs / 1000)} s from the real time` : ""}`;
type Account = { username: string; balance: number; startingBalance: number; realizedPnl: number };
type Fault = {
  id: string;
  kind: string;
  operation: string;
  remaining: number | null;
  share: number | null;
  injected: number;
};
const faultLine = (f: Fault) =>
  `${f.id}  ${f.kind}  ${f.operation}  ${f.share !== null ? `share ${f.share}` : `${f.remaining} left`}  injected ${f.injected}`;

/** `sandbox …`: the control API (decision 0148) from the command line, against a running server. */
export function addSandboxCommands(program: Command, withStore: WithStore): void {
  const sandbox = program
    .command("sandbox")
    .description("drive a running server's sandbox: prices, clock, demo accounts, the world, faults")
    .option("--url <url>", "the server (env SANDBOX_URL; default http://127.0.0.1:$PORT)")
    .option("--api-key <key>", "the operator's x-api-key (env SANDBOX_API_KEY; default: the operator file)")
    .option("--user-key <key>", "the operator's x-user-key (env SANDBOX_USER_KEY; default: the operator file)");

  sandbox
    .command("operator-key")
    .description("issue an operator key pair (the only credential the sandbox admits) and save it for these commands")
    .option("--user <user>", "the user it belongs to (username, id or gcid)", DEMO_USERNAME)
    .action(async (o: { user: string }, cmd: Command) =>
      withStore(cmd, async (_ctx, out, deps) => {
        const key = await issueOperatorKey(deps, o.user);
        const file = operatorFile(deps.config);
        out.result({ ...key, file: file ? resolve(file) : null }, () =>
          [
            `operator key pair ${key.id} for ${key.user}`,
            `x-api-key:  ${key.apiKey}`,
            `x-user-key: ${key.userKey}`,
            file ? `saved in ${resolve(file)}: the sandbox commands use it` : "",
          ]
            .filter(Boolean)
            .join("\n"),
        );
      }),
    );

  // --- market ---------------------------------------------------------------------------------
  sandbox
    .command("market")
    .description("the market's controls now: tick, paused instruments, scripts queued")
    .action(async (_o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const m = (await send("GET", "/sandbox/v1/market")) as MarketState;
      out.result(m, () => marketLines(m));
    });
  sandbox
    .command("step")
    .description("run the engine's tick now (scripted prices play, unpaused instruments walk)")
    .option("--ticks <n>", "how many ticks", wholeNumber, 1)
    .action(async (o: { ticks: number }, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("POST", "/sandbox/v1/market/step", { ticks: o.ticks })) as { step: number; moved: Quote[] };
      // A walking market moves every instrument: the lines only when few moved (--json has all).
      out.result(r, () =>
        r.moved.length <= 5
          ? [`tick ${r.step}`, ...r.moved.map(quoteLine)].join("\n")
          : `tick ${r.step}: ${r.moved.length} prices moved (--json lists them)`,
      );
    });
  for (const verb of ["pause", "resume"] as const) {
    sandbox
      .command(verb)
      .description(
        verb === "pause"
          ? "pause instruments (or all): timed ticks leave them where they are"
          : "resume instruments (or all, lifting every pause)",
      )
      .option("--instrument <id>", "an instrument id (repeatable); none = all", instrumentIds)
      .action(async (o: { instrument?: number[] }, cmd: Command) => {
        const { out, send } = remoteOf(cmd);
        const m = (await send(
          "POST",
          `/sandbox/v1/market/${verb}`,
          o.instrument ? { instrumentIds: o.instrument } : {},
        )) as MarketState;
        out.result(m, () => marketLines(m));
      });
  }

  // --- prices ---------------------------------------------------------------------------------
  const price = sandbox.command("price").description("an instrument's price");
  price
    .command("get")
    .argument("<instrumentId>", "the instrument's id", wholeNumber)
    .description("the price now, whether it is paused, scripted prices queued")
    .action(async (id: number, _o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("GET", `/sandbox/v1/prices/${id}`)) as { quote: Quote; paused: boolean; queued: number };
      out.result(
        r,
        () => `${quoteLine(r.quote)}${r.paused ? "  paused" : ""}${r.queued ? `  ${r.queued} queued` : ""}`,
      );
    });
  price
    .command("set")
    .argument("<instrumentId>", "the instrument's id", wholeNumber)
    .description("set the bid and ask now (one engine tick: stop-losses, take-profits and alerts react)")
    .requiredOption("--bid <price>", "the bid", positiveNumber)
    .requiredOption("--ask <price>", "the ask (at least the bid)", positiveNumber)
    .action(async (id: number, o: { bid: number; ask: number }, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("PUT", `/sandbox/v1/prices/${id}`, { bid: o.bid, ask: o.ask })) as { quote: Quote };
      out.result(r, () => quoteLine(r.quote));
    });
  price
    .command("path")
    .argument("<instrumentId>", "the instrument's id", wholeNumber)
    .description("play a scripted path: one price per tick, now or on the engine's ticks")
    .option("--prices <list>", "mid prices, comma-separated (100,99.5,98)")
    .option("--csv <file>", "a CSV file: `mid` or `bid,ask` per line (a header line is skipped)")
    .addOption(
      new Option("--run <when>", "now: at once; ticks: on the engine's ticks").choices(["now", "ticks"]).default("now"),
    )
    .action(async (id: number, o: { prices?: string; csv?: string; run: string }, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      if ((o.prices === undefined) === (o.csv === undefined))
        throw new AppError("ValidationFailed", "give exactly one of --prices or --csv");
      const body = o.prices
        ? { prices: o.prices.split(",").map((p) => positiveNumber(p.trim())), run: o.run }
        : { csv: readFileSync(o.csv as string, "utf8"), run: o.run };
      const r = (await send("POST", `/sandbox/v1/prices/${id}/path`, body)) as {
        played: number;
        queued: number;
        quote: Quote;
      };
      out.result(r, () => `played ${r.played}, queued ${r.queued}; ${quoteLine(r.quote)}`);
    });

  // --- clock ----------------------------------------------------------------------------------
  const clock = sandbox.command("clock").description("the sandbox clock every expiry, retention and date follows");
  clock
    .command("get")
    .description("the server's time now")
    .action(async (_o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const c = (await send("GET", "/sandbox/v1/clock")) as Clock;
      out.result(c, () => clockLine(c));
    });
  clock
    .command("set")
    .argument("<at>", "an ISO 8601 time (2030-01-01T00:00:00Z)")
    .option("--frozen", "stand still there")
    .description("set the time")
    .action(async (at: string, o: { frozen?: boolean }, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const c = (await send("PUT", "/sandbox/v1/clock", { at, frozen: Boolean(o.frozen) })) as Clock;
      out.result(c, () => clockLine(c));
    });
  clock
    .command("advance")
    .argument("<duration>", "seconds, or 90s, 15m, 2h, 7d", durationSeconds)
    .description("move time forward")
    .action(async (seconds: number, _o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const c = (await send("POST", "/sandbox/v1/clock/advance", { seconds })) as Clock;
      out.result(c, () => clockLine(c));
    });
  clock
    .command("reset")
    .description("back to the real time")
    .action(async (_o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const c = (await send("DELETE", "/sandbox/v1/clock")) as Clock;
      out.result(c, () => clockLine(c));
    });

  // --- accounts -------------------------------------------------------------------------------
  const balance = sandbox.command("balance").description("a user's demo cash");
  const accountLine = (a: Account) =>
    `${a.username}: cash ${a.balance} USD (started with ${a.startingBalance}, realised P/L ${a.realizedPnl})`;
  balance
    .command("set")
    .argument("<user>", "username, id or gcid")
    .argument("<usd>", "the cash, in USD")
    .description("set a user's demo cash")
    .action(async (user: string, usd: string, _o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const amount = Number(usd);
      if (!Number.isFinite(amount) || amount < 0)
        throw new AppError("ValidationFailed", "<usd> must be a number, at least 0");
      const a = (await send("PUT", `/sandbox/v1/accounts/${encodeURIComponent(user)}/balance`, {
        balance: amount,
      })) as Account;
      out.result(a, () => accountLine(a));
    });
  balance
    .command("reset")
    .argument("<user>", "username, id or gcid")
    .description("set a user's demo cash back to DEMO_BALANCE")
    .action(async (user: string, _o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const a = (await send("DELETE", `/sandbox/v1/accounts/${encodeURIComponent(user)}/balance`)) as Account;
      out.result(a, () => accountLine(a));
    });
  for (const [name, path, said] of [
    ["close-positions", "close-positions", "close every open demo position of a user at the market now"],
    ["reset-user", "reset", "reset a user's demo account: positions closed, history forgotten, cash at DEMO_BALANCE"],
  ] as const) {
    sandbox
      .command(name)
      .argument("<user>", "username, id or gcid")
      .description(said)
      .action(async (user: string, _o, cmd: Command) => {
        const { out, send } = remoteOf(cmd);
        const r = (await send("POST", `/sandbox/v1/accounts/${encodeURIComponent(user)}/${path}`)) as {
          closedPositionIds: number[];
        };
        out.result(r, () =>
          r.closedPositionIds.length ? `closed positions ${r.closedPositionIds.join(", ")}` : "no open positions",
        );
      });
  }

  sandbox
    .command("traders")
    .description("the seeded traders (alice, bob, carmen) trade now: one pass of their strategy (decision 0174)")
    .action(async (_o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("POST", "/sandbox/v1/traders/trade")) as {
        trades: { username: string; action: string; instrumentId: number; positionId: number }[];
        skipped: { username: string; instrumentId: number; reason: string }[];
      };
      out.result(
        r,
        () =>
          [
            ...r.trades.map((t) => `${t.username}: ${t.action} ${t.instrumentId} (position ${t.positionId})`),
            ...r.skipped.map((t) => `${t.username}: skipped ${t.instrumentId}: ${t.reason}`),
          ].join("\n") || "no seeded traders with a demo account",
      );
    });

  // --- world ----------------------------------------------------------------------------------
  const world = sandbox.command("world").description("the whole world: reset and snapshots");
  world
    .command("reset")
    .option("--snapshot <name>", "a snapshot saved earlier (default: `start`, saved by serve, else the seed)")
    .description("reset everything to the start, the seed or a snapshot; prints each step")
    .action(async (o: { snapshot?: string }, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      out.progress(`resetting the world${o.snapshot ? ` to ${o.snapshot}` : ""}`);
      const r = (await send("POST", "/sandbox/v1/world/reset", o.snapshot ? { snapshot: o.snapshot } : {})) as {
        source: string;
        steps: { step: string; rows: number; elapsedMs: number }[];
      };
      for (const s of r.steps) out.progress(`${s.step}${s.rows ? ` (${s.rows} rows)` : ""} at ${s.elapsedMs} ms`);
      out.result(r, () => `the world is back to ${r.source}`);
    });
  world
    .command("save")
    .argument("<name>", "letters, digits, '.', '_' or '-'")
    .description("save the world as a named snapshot")
    .action(async (name: string, _o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("POST", "/sandbox/v1/world/snapshots", { name })) as {
        name: string;
        rows: number;
        tables: number;
      };
      out.result(r, () => `saved ${r.name}: ${r.rows} rows in ${r.tables} tables`);
    });
  world
    .command("list")
    .description("the saved snapshots")
    .action(async (_o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("GET", "/sandbox/v1/world/snapshots")) as {
        snapshots: { name: string; rows: number; createdAt: string }[];
      };
      out.result(r, () =>
        r.snapshots.length
          ? r.snapshots.map((s) => `${s.name}  ${s.createdAt}  ${s.rows} rows`).join("\n")
          : "no snapshots",
      );
    });

  // --- faults ---------------------------------------------------------------------------------
  const faults = sandbox.command("faults").description("injected failures for testing a client's retries");
  faults
    .command("add")
    .description("fault the next N calls (or a share of calls) of an operation by a credential or a user")
    .requiredOption("--operation <op>", "an operationId, a route (`GET /api/v1/me`) or `*`")
    .addOption(new Option("--kind <kind>", "the answer").choices(["429", "500", "503", "delay"]).makeOptionMandatory())
    .option("--user <user>", "every credential of this user (username, id or gcid)")
    .option("--credential <id>", "one key pair id or OAuth client id")
    .option("--count <n>", "fault the next N calls (default 1)", wholeNumber)
    .option("--share <p>", "instead: fault this share of calls, 0 < p ≤ 1 (0.5 = every second call)", positiveNumber)
    .option("--retry-after <seconds>", "Retry-After of a 429 or 503", wholeNumber)
    .option("--delay-ms <ms>", "how long a delay holds the call", wholeNumber)
    .action(
      async (
        o: {
          operation: string;
          kind: string;
          user?: string;
          credential?: string;
          count?: number;
          share?: number;
          retryAfter?: number;
          delayMs?: number;
        },
        cmd: Command,
      ) => {
        const { out, send } = remoteOf(cmd);
        const f = (await send("POST", "/sandbox/v1/faults", {
          operation: o.operation,
          kind: o.kind,
          ...(o.user !== undefined ? { user: o.user } : {}),
          ...(o.credential !== undefined ? { credentialId: o.credential } : {}),
          ...(o.count !== undefined ? { count: o.count } : {}),
          ...(o.share !== undefined ? { share: o.share } : {}),
          ...(o.retryAfter !== undefined ? { retryAfterSeconds: o.retryAfter } : {}),
          ...(o.delayMs !== undefined ? { delayMs: o.delayMs } : {}),
        })) as Fault;
        out.result(f, () => `armed ${faultLine(f)}`);
      },
    );
  faults
    .command("list")
    .description("the armed faults")
    .action(async (_o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("GET", "/sandbox/v1/faults")) as { faults: Fault[] };
      out.result(r, () => (r.faults.length ? r.faults.map(faultLine).join("\n") : "no faults armed"));
    });
  faults
    .command("remove")
    .argument("<id>", "the fault's id")
    .description("disarm one fault")
    .action(async (id: string, _o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("DELETE", `/sandbox/v1/faults/${encodeURIComponent(id)}`)) as { removed: number };
      out.result(r, () => `removed ${r.removed}`);
    });
  faults
    .command("clear")
    .description("disarm every fault")
    .action(async (_o, cmd: Command) => {
      const { out, send } = remoteOf(cmd);
      const r = (await send("DELETE", "/sandbox/v1/faults")) as { removed: number };
      out.result(r, () => `removed ${r.removed}`);
    });
}
