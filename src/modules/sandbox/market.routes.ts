import { api } from "../../http/access.js";
import {
  pausePrices,
  playPath,
  readInstrument,
  readMarketControls,
  resumePrices,
  setPrice,
  stepMarket,
} from "./prices.js";
import { NOTE, OPERATOR, type SandboxRouteKit, TAGS } from "./route-kit.routes.js";
import {
  InstrumentParams,
  InstrumentState,
  InstrumentsBody,
  MarketState,
  PlayPathBody,
  PlayPathResult,
  SetPriceBody,
  StepBody,
  StepResult,
} from "./sandbox.schemas.js";
import { toQuoteView } from "./sandbox.view.js";

const stateView = (s: Awaited<ReturnType<typeof readInstrument>>) => ({
  quote: toQuoteView(s.quote),
  paused: s.paused,
  queued: s.queued,
});

export function registerMarketControls({ app, prefix, ctx }: SandboxRouteKit): void {
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
}
