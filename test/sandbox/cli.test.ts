import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = join(import.meta.dirname, "../../bin/social-trading-api.js");

function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", ...extra };
  for (const name of ["DATABASE_URL", "PUBLIC_URL", "PORT", "HOST", "REDIS_URL", "NODE_ENV", "SANDBOX"]) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

interface Banner {
  baseUrl: string;
  rateLimitProfile: string;
  demo: { apiKey: string; userKey: string };
  sandbox: {
    enabled: boolean;
    operator: { id: string; apiKey: string; userKey: string } | null;
    operatorFile: string | null;
  };
}

/** The sandbox's controls from the command line, against a real `serve` in a fresh folder. */
describe("the sandbox commands of the CLI", { timeout: 120_000 }, () => {
  let cwd: string;
  let child: ChildProcess;
  let banner: Banner;

  const cli = async (args: string[], options: { cwd?: string } = {}) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, "sandbox", "--url", banner.baseUrl, ...args], {
        env: userEnv(),
        cwd: options.cwd ?? cwd,
      });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  };
  /** A command with --json that must succeed: its document. */
  const json = async (...args: string[]) => {
    const r = await cli([...args, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${banner.baseUrl}${path}`, {
      method,
      headers: {
        "x-api-key": banner.demo.apiKey,
        "x-user-key": banner.demo.userKey,
        "x-request-id": crypto.randomUUID(),
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies of several shapes, checked by the assertions
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), "sta-sandbox-cli-"));
    // The sandbox profile: the operator's many writes in a row never wait for the writes pool.
    child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--json"], {
      env: userEnv({ RATE_LIMIT_PROFILE: "sandbox" }),
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stderr!.on("data", (c) => {
      out += c;
    });
    banner = await new Promise<Banner>((resolve, reject) => {
      child.stdout!.on("data", (chunk) => {
        out += chunk;
        const start = out.indexOf('{\n  "baseUrl"');
        if (start < 0) return;
        try {
          resolve(JSON.parse(out.slice(start, out.indexOf("\n}\n", start) + 2)));
        } catch {
          // not complete yet
        }
      });
      child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    });
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  it("serve shows the rate-limit profile and the operator's key pair, saved owner-only for the commands", () => {
    expect(banner.rateLimitProfile).toBe("sandbox");
    expect(banner.sandbox.enabled).toBe(true);
    expect(banner.sandbox.operatorFile).toBe(join("data", "sandbox-operator.json"));
    const file = join(cwd, "data", "sandbox-operator.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
      apiKey: banner.sandbox.operator!.apiKey,
      user: "demo",
    });
  });

  it("explains itself with --help", async () => {
    const help = await cli(["--help"]);
    for (const command of [
      "operator-key",
      "market",
      "step",
      "pause",
      "resume",
      "price",
      "clock",
      "balance",
      "world",
      "faults",
    ]) {
      expect(help.stdout).toContain(command);
    }
  });

  it("pauses, sets a price, plays a path on the ticks, steps: a stop-loss fires at its rate", async () => {
    expect(await json("pause", "--instrument", "1001")).toMatchObject({ paused: [1001] });
    const set = await json("price", "set", "1001", "--bid", "200", "--ask", "200.1");
    expect(set.quote).toMatchObject({ bid: 200, ask: 200.1 });
    const open = await api("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", {
      InstrumentID: 1001,
      IsBuy: true,
      Leverage: 1,
      Amount: 1000,
      StopLossRate: 195,
    });
    expect(open.status).toBe(200);
    // The seeded demo account holds positions of its replayed history too: follow this one.
    const positionId = open.body.orderForOpen.positionID;
    const isOurs = (p: { positionID: number }) => p.positionID === positionId;
    expect(await json("price", "path", "1001", "--prices", "198,196,194", "--run", "ticks")).toMatchObject({
      played: 0,
      queued: 3,
    });
    expect((await json("market")).scripted).toEqual([{ instrumentId: 1001, queued: 3 }]);
    // Unpaused instruments walk on a step; the paused one moves only by its script.
    const stepped = await json("step", "--ticks", "2");
    expect(stepped.moved.find((q: { instrumentId: number }) => q.instrumentId === 1001).mid).toBe(196);
    expect((await api("GET", "/api/v1/trading/info/demo/portfolio")).body.clientPortfolio.positions.some(isOurs)).toBe(
      true,
    );
    await json("step");
    const trade = (await api("GET", "/api/v1/trading/info/trade/demo/history")).body.find(
      (t: { positionId: number }) => t.positionId === positionId,
    );
    expect(trade).toMatchObject({ closeRate: 195, closeReason: "StopLoss" });
    const csv = join(cwd, "path.csv");
    writeFileSync(csv, "bid,ask\n180,180.2\n181,181.2\n");
    expect((await json("price", "path", "1001", "--csv", csv)).quote).toMatchObject({ bid: 181, ask: 181.2 });
    expect((await json("price", "get", "1001")).paused).toBe(true);
    expect(await json("resume")).toMatchObject({ allPaused: false, paused: [] });
    const human = await cli(["price", "get", "1001"]);
    expect(human.stdout).toMatch(/^1001: bid [\d.]+ {2}ask [\d.]+ {2}\(tick \d+, /);
  });

  it("refuses a bad price with the server's message, in JSON too", async () => {
    const bad = await cli(["price", "set", "1001", "--bid", "10", "--ask", "9", "--json"]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: "ValidationFailed" });
    expect(bad.stderr).toContain("body/ask");
  });

  it("sets, advances, reads and resets the clock", async () => {
    expect(await json("clock", "set", "2031-05-06T07:08:09Z", "--frozen")).toMatchObject({
      now: "2031-05-06T07:08:09.000Z",
      frozen: true,
    });
    expect((await json("clock", "advance", "2h")).now).toBe("2031-05-06T09:08:09.000Z");
    expect((await json("clock", "get")).now).toBe("2031-05-06T09:08:09.000Z");
    expect(await json("clock", "reset")).toMatchObject({ frozen: false, offsetMs: 0 });
  });

  it("sets and resets the demo balance, closes positions, resets a user", async () => {
    expect(await json("balance", "set", "demo", "5000")).toMatchObject({ username: "demo", balance: 5000 });
    expect((await api("GET", "/api/v1/trading/info/demo/portfolio")).body.clientPortfolio.credit).toBe(5000);
    expect((await json("balance", "reset", "demo")).balance).toBe(100000);
    const opened = await api("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", {
      InstrumentID: 100000,
      IsBuy: true,
      Leverage: 1,
      Amount: 500,
    });
    // Every open position of the account closes: this one and the seeded history's.
    const closed = (await json("close-positions", "demo")).closedPositionIds;
    expect(closed).toContain(opened.body.orderForOpen.positionID);
    expect((await api("GET", "/api/v1/trading/info/demo/portfolio")).body.clientPortfolio.positions).toEqual([]);
    expect((await json("reset-user", "demo")).closedPositionIds).toEqual([]);
    expect((await api("GET", "/api/v1/trading/info/trade/demo/history")).body).toEqual([]);
  });

  it("makes the seeded traders trade now: each rolls its oldest position", async () => {
    const pass = await json("traders");
    expect(pass.skipped).toEqual([]);
    for (const name of ["alice", "bob", "carmen"]) {
      const own = pass.trades.filter((t: { username: string }) => t.username === name);
      expect(own.map((t: { action: string }) => t.action)).toEqual(["close", "open"]);
      expect(own[0].instrumentId).toBe(own[1].instrumentId);
    }
    const said = await cli(["traders"]);
    expect(said.code, said.stderr).toBe(0);
    expect(said.stdout).toMatch(/^alice: close \d+ \(position \d+\)\nalice: open \d+ \(position \d+\)/);
  });

  it("arms a 429 with Retry-After for the demo user, lists, removes and clears faults", async () => {
    const fault = await json(
      "faults",
      "add",
      "--user",
      "demo",
      "--operation",
      "GET /api/v1/me",
      "--kind",
      "429",
      "--retry-after",
      "4",
    );
    const refused = await api("GET", "/api/v1/me");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("4");
    expect(refused.headers.get("x-sandbox-fault")).toBe(`429; id=${fault.id}`);
    expect((await api("GET", "/api/v1/me")).status).toBe(200);
    const shared = await json("faults", "add", "--user", "demo", "--operation", "*", "--kind", "503", "--share", "0.5");
    expect((await json("faults", "list")).faults.map((f: { id: string }) => f.id)).toEqual([shared.id]);
    expect(await json("faults", "remove", shared.id)).toEqual({ removed: 1 });
    await json("faults", "add", "--user", "demo", "--operation", "*", "--kind", "delay", "--delay-ms", "10");
    expect(await json("faults", "clear")).toEqual({ removed: 1 });
  });

  it("saves a snapshot, resets the world to it and to the start, with progress on stderr", async () => {
    expect(await json("world", "save", "before")).toMatchObject({ name: "before" });
    expect((await json("world", "list")).snapshots.map((s: { name: string }) => s.name)).toEqual(["before", "start"]);
    const r = await cli(["world", "reset", "--snapshot", "before", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).source).toBe("before");
    expect(r.stderr).toMatch(/restored users \(\d+ rows\)/);
    // The start snapshot holds the credentials serve printed: they still work after the reset.
    expect((await json("world", "reset")).source).toBe("start");
    expect((await api("GET", "/api/v1/me")).status).toBe(200);
  });

  it("issues a new operator key pair (the earlier one is revoked); without one a command says how to get one", async () => {
    const key = await json("operator-key");
    expect(key).toMatchObject({ user: "demo", file: join(cwd, "data", "sandbox-operator.json") });
    expect(key.apiKey).not.toBe(banner.sandbox.operator!.apiKey);
    expect((await json("market")).step).toBeGreaterThan(0);
    const elsewhere = mkdtempSync(join(tmpdir(), "sta-sandbox-none-"));
    try {
      const none = await cli(["market"], { cwd: elsewhere });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("sandbox operator-key");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
