import { setTimeout as sleep } from "node:timers/promises";
import { AppError } from "../../core/errors.js";
import { type Access, api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { seedDemoWorld } from "../../seed/seed.js";
import { type Deps, withActor } from "../context.js";
import { closePositionsOf, resetUser, setBalance } from "./accounts.js";
import { advanceClock, readClock, resetClock, setClock } from "./clock.js";
import type { FaultRule } from "./fault-book.js";
import { armFault, clearFaults, listFaults, removeFault } from "./faults.js";
import {
  pausePrices,
  playPath,
  readInstrument,
  readMarketControls,
  resumePrices,
  setPrice,
  stepMarket,
} from "./prices.js";
import {
  AccountView,
  AddFaultBody,
  AdvanceClockBody,
  ClockView,
  ClosedPositions,
  FaultList,
  FaultParams,
  FaultView,
  InstrumentParams,
  InstrumentState,
  InstrumentsBody,
  MarketState,
  PlayPathBody,
  PlayPathResult,
  Removed,
  ResetWorldBody,
  SetBalanceBody,
  SetClockBody,
  SetPriceBody,
  SnapshotBody,
  SnapshotList,
  SnapshotView,
  StepBody,
  StepResult,
  UserParams,
  WorldProgress,
} from "./sandbox.schemas.js";
import { toFaultView, toQuoteView } from "./sandbox.view.js";
import { SANDBOX_SCOPES } from "./sandbox-access.js";
import { listSnapshots, resetWorld, saveSnapshot } from "./world.js";

const TAGS = ["Sandbox"];

/** Every control: the operator's scope only; the default pool (no `writes` pool: a control is not a client's write). */
const OPERATOR: Access = { scopes: SANDBOX_SCOPES };

const NOTE =
  " Sandbox control (decision 0148): needs the operator's key pair (`sandbox operator-key`); absent (404) when SANDBOX=off.";

const stateView = (s: Awaited<ReturnType<typeof readInstrument>>) => ({
  quote: toQuoteView(s.quote),
  paused: s.paused,
  queued: s.queued,
});

/** The answer header that marks an injected fault: `<kind>; id=<fault id>`. */
export const FAULT_HEADER = "x-sandbox-fault";

/**
 * The fault injector (decision 0150): before validation (the caller is known and counted by the
 * limiter), a call whose credential and operation match an armed fault gets it instead of its
 * answer (429 or 503 with Retry-After, 500), or waits before running (delay). Sandbox paths are
 * never faulted, so the operator can always disarm.
 */
export function registerFaultInjection(app: App, deps: Deps): void {
  const sandbox = deps.sandbox;
  if (!sandbox) return;
  app.addHook("preValidation", async (request, reply) => {
    if (sandbox.faults.size === 0) return;
    const actor = request.actor;
    if (actor?.kind !== "user") return;
    const pattern = request.routeOptions.url ?? "";
    if (pattern.startsWith("/sandbox/")) return;
    const fault = sandbox.faults.take({
      credentialId: actor.credentialId,
      userId: actor.userId,
      operationId: (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId,
      route: `${request.method} ${pattern}`,
    });
    if (!fault) return;
    reply.header(FAULT_HEADER, `${fault.kind}; id=${fault.id}`);
    const answer = await faultAnswer(fault, reply);
    if (answer) throw answer;
  });
}

async function faultAnswer(
  fault: FaultRule,
  reply: { header(name: string, value: string): unknown },
): Promise<AppError | undefined> {
  const said = `Injected by the sandbox (fault ${fault.id})`;
  switch (fault.kind) {
    case "429":
      reply.header("Retry-After", String(fault.retryAfterSeconds));
      return new AppError("TooManyRequests", `${said}: too many requests; retry after ${fault.retryAfterSeconds} s`);
    case "503":
      reply.header("Retry-After", String(fault.retryAfterSeconds));
      return new AppError(
        "ServiceUnavailable",
        `${said}: the service is unavailable; retry after ${fault.retryAfterSeconds} s`,
      );
    case "500":
      return new AppError("GeneralError", `${said}: an unexpected error occurred`);
    case "delay":
      await sleep(fault.delayMs);
      return undefined;
  }
}

export function registerSandboxRoutes(app: App, deps: Deps): void {
  if (!deps.sandbox) return;
  const prefix = deps.config.scopePrefix;
  const ctx = (request: { actor: Parameters<typeof withActor>[1] }) => withActor(deps, request.actor);

  // --- prices -----------------------------------------------------------------------------

  app.route({
    method: "GET",
    url: "/sandbox/v1/market",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxGetMarket",
        tags: TAGS,
        summary: "The market's controls now: step, paused instruments, scripts still playing",
        description: NOTE,
        response: { 200: MarketState },
      },
      prefix,
    ),
    handler: async (request) => readMarketControls(ctx(request)),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/market/step",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxStepMarket",
        tags: TAGS,
        summary: "Run the engine's tick now, `ticks` times",
        description:
          "Each tick is an ordinary tick of the engine (triggers, alerts and the real-time channel react): scripted " +
          `prices play even on paused instruments, unpaused instruments take their random walk.${NOTE}`,
        body: StepBody,
        response: { 200: StepResult },
      },
      prefix,
    ),
    handler: async (request) => {
      const r = await stepMarket(ctx(request), request.body.ticks ?? 1);
      return { step: r.step, ticks: r.ticks, moved: r.moved.map(toQuoteView) };
    },
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/market/pause",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxPausePrices",
        tags: TAGS,
        summary: "Pause instruments (or all): timed ticks leave them where they are",
        description: NOTE,
        body: InstrumentsBody,
        response: { 200: MarketState },
      },
      prefix,
    ),
    handler: async (request) => pausePrices(ctx(request), request.body.instrumentIds),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/market/resume",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResumePrices",
        tags: TAGS,
        summary: "Resume instruments (or all, lifting every pause)",
        description: NOTE,
        body: InstrumentsBody,
        response: { 200: MarketState },
      },
      prefix,
    ),
    handler: async (request) => resumePrices(ctx(request), request.body.instrumentIds),
  });

  app.route({
    method: "GET",
    url: "/sandbox/v1/prices/:instrumentId",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxGetPrice",
        tags: TAGS,
        summary: "An instrument's price, whether it is paused, and scripted prices still queued",
        description: NOTE,
        params: InstrumentParams,
        response: { 200: InstrumentState },
      },
      prefix,
    ),
    handler: async (request) => stateView(await readInstrument(ctx(request), request.params.instrumentId)),
  });

  app.route({
    method: "PUT",
    url: "/sandbox/v1/prices/:instrumentId",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxSetPrice",
        tags: TAGS,
        summary: "Set an instrument's bid and ask now",
        description:
          "Applied by one tick of the engine that moves only this instrument: a stop-loss, take-profit, trailing stop " +
          `or price alert the price reaches fires before the answer.${NOTE}`,
        params: InstrumentParams,
        body: SetPriceBody,
        response: { 200: InstrumentState },
      },
      prefix,
    ),
    handler: async (request) => stateView(await setPrice(ctx(request), request.params.instrumentId, request.body)),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/prices/:instrumentId/path",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxPlayPath",
        tags: TAGS,
        summary: "Play a scripted price path (a list of prices or CSV)",
        description: NOTE,
        params: InstrumentParams,
        body: PlayPathBody,
        response: { 200: PlayPathResult },
      },
      prefix,
    ),
    handler: async (request) => {
      const r = await playPath(ctx(request), request.params.instrumentId, request.body);
      return { ...r, quote: toQuoteView(r.quote) };
    },
  });

  // --- time -------------------------------------------------------------------------------

  app.route({
    method: "GET",
    url: "/sandbox/v1/clock",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxGetClock",
        tags: TAGS,
        summary: "The sandbox clock",
        description: NOTE,
        response: { 200: ClockView },
      },
      prefix,
    ),
    handler: async (request) => readClock(ctx(request)),
  });

  app.route({
    method: "PUT",
    url: "/sandbox/v1/clock",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxSetClock",
        tags: TAGS,
        summary: "Set the time, frozen or running on",
        description: `Token expiry, retention, trade and quote dates and rate-limit windows follow it.${NOTE}`,
        body: SetClockBody,
        response: { 200: ClockView },
      },
      prefix,
    ),
    handler: async (request) => setClock(ctx(request), request.body),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/clock/advance",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxAdvanceClock",
        tags: TAGS,
        summary: "Move time forward",
        description: NOTE,
        body: AdvanceClockBody,
        response: { 200: ClockView },
      },
      prefix,
    ),
    handler: async (request) => advanceClock(ctx(request), request.body.seconds),
  });

  app.route({
    method: "DELETE",
    url: "/sandbox/v1/clock",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResetClock",
        tags: TAGS,
        summary: "Back to the real time",
        description: NOTE,
        response: { 200: ClockView },
      },
      prefix,
    ),
    handler: async (request) => resetClock(ctx(request)),
  });

  // --- accounts ---------------------------------------------------------------------------

  app.route({
    method: "PUT",
    url: "/sandbox/v1/accounts/:user/balance",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxSetBalance",
        tags: TAGS,
        summary: "Set a user's demo cash (USD)",
        description: `Opens the demo account first if the user never traded; open positions are left alone.${NOTE}`,
        params: UserParams,
        body: SetBalanceBody,
        response: { 200: AccountView },
      },
      prefix,
    ),
    handler: async (request) => setBalance(ctx(request), request.params.user, request.body.balance),
  });

  app.route({
    method: "DELETE",
    url: "/sandbox/v1/accounts/:user/balance",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResetBalance",
        tags: TAGS,
        summary: "Set a user's demo cash back to DEMO_BALANCE",
        description: NOTE,
        params: UserParams,
        response: { 200: AccountView },
      },
      prefix,
    ),
    handler: async (request) => setBalance(ctx(request), request.params.user, undefined),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/accounts/:user/close-positions",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxClosePositions",
        tags: TAGS,
        summary: "Close every open demo position of a user at the market now",
        description: NOTE,
        params: UserParams,
        response: { 200: ClosedPositions },
      },
      prefix,
    ),
    handler: async (request) => closePositionsOf(ctx(request), request.params.user),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/accounts/:user/reset",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResetUser",
        tags: TAGS,
        summary: "Reset a user's demo account: positions closed, history forgotten, cash at DEMO_BALANCE",
        description: NOTE,
        params: UserParams,
        response: { 200: ClosedPositions },
      },
      prefix,
    ),
    handler: async (request) => resetUser(ctx(request), request.params.user),
  });

  // --- world ------------------------------------------------------------------------------

  app.route({
    method: "POST",
    url: "/sandbox/v1/world/reset",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResetWorld",
        tags: TAGS,
        summary: "Reset everything to the seed, or to a snapshot saved earlier",
        description:
          "Every table is emptied and filled again (the seed's demo world, or the snapshot's rows); prices, pauses, " +
          "scripts, faults and the clock go back to their start. The answer lists each step done, with the rows " +
          `written and the time taken.${NOTE}`,
        body: ResetWorldBody,
        response: { 200: WorldProgress },
      },
      prefix,
    ),
    handler: async (request) => resetWorld(ctx(request), request.body.snapshot, seedDemoWorld),
  });

  app.route({
    method: "GET",
    url: "/sandbox/v1/world/snapshots",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxListSnapshots",
        tags: TAGS,
        summary: "The saved snapshots",
        description: NOTE,
        response: { 200: SnapshotList },
      },
      prefix,
    ),
    handler: async (request) => ({ snapshots: await listSnapshots(ctx(request)) }),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/world/snapshots",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxSaveSnapshot",
        tags: TAGS,
        summary: "Save the world as a named snapshot (replacing one of that name)",
        description: NOTE,
        body: SnapshotBody,
        response: { 201: SnapshotView },
      },
      prefix,
    ),
    handler: async (request, reply) => reply.status(201).send(await saveSnapshot(ctx(request), request.body.name)),
  });

  // --- faults -----------------------------------------------------------------------------

  app.route({
    method: "GET",
    url: "/sandbox/v1/faults",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxListFaults",
        tags: TAGS,
        summary: "The armed faults",
        description: NOTE,
        response: { 200: FaultList },
      },
      prefix,
    ),
    handler: async (request) => ({ faults: listFaults(ctx(request)).map(toFaultView) }),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/faults",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxArmFault",
        tags: TAGS,
        summary: "Arm a fault: the next N calls (or a share of calls) of an operation by a credential fail",
        description:
          "A faulted call answers 429 or 503 (with `Retry-After`) or 500 in the one error body, or waits `delayMs` " +
          `and then runs; every faulted answer carries \`${FAULT_HEADER}: <kind>; id=<fault id>\`.${NOTE}`,
        body: AddFaultBody,
        response: { 201: FaultView },
      },
      prefix,
    ),
    handler: async (request, reply) => reply.status(201).send(toFaultView(await armFault(ctx(request), request.body))),
  });

  app.route({
    method: "DELETE",
    url: "/sandbox/v1/faults",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxClearFaults",
        tags: TAGS,
        summary: "Disarm every fault",
        description: NOTE,
        response: { 200: Removed },
      },
      prefix,
    ),
    handler: async (request) => ({ removed: clearFaults(ctx(request)) }),
  });

  app.route({
    method: "DELETE",
    url: "/sandbox/v1/faults/:faultId",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxRemoveFault",
        tags: TAGS,
        summary: "Disarm one fault",
        description: NOTE,
        params: FaultParams,
        response: { 200: Removed },
      },
      prefix,
    ),
    handler: async (request) => ({ removed: removeFault(ctx(request), request.params.faultId) }),
  });
}
