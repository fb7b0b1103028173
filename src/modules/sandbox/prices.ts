import { AppError, invalid } from "../../core/errors.js";
import type { Quote } from "../../core/market.js";
import type { Ctx } from "../context.js";
import { currentQuotes } from "../market/quotes.js";
import { requireOperator, requireTickingEngine, sandboxOf } from "./sandbox-access.js";
import type { ScriptedPrice } from "./sandbox-prices.js";

/**
 * The price controls (decision 0148). Every price reaches the market through the engine's own
 * tick (`market.tick`), so the triggers, price alerts, the real-time channel and (with several
 * instances) the price stream react to it exactly as to an organic tick.
 */

export interface InstrumentState {
  quote: Quote;
  paused: boolean;
  queued: number;
}

/** The instrument's quote now, loading it from the catalog first; 404 for an unknown id. */
async function quoteOf(ctx: Ctx, instrumentId: number): Promise<Quote> {
  const quote = (await currentQuotes(ctx, [instrumentId])).get(instrumentId);
  if (!quote) throw new AppError("NotFound", `Instrument ${instrumentId} was not found`);
  return quote;
}

const stateOf = (ctx: Ctx, quote: Quote): InstrumentState => {
  const prices = sandboxOf(ctx).prices;
  return { quote, paused: prices.isPaused(quote.instrumentId), queued: prices.queued(quote.instrumentId) };
};

export async function readInstrument(ctx: Ctx, instrumentId: number): Promise<InstrumentState> {
  requireOperator(ctx.actor);
  sandboxOf(ctx);
  return stateOf(ctx, await quoteOf(ctx, instrumentId));
}

export function readMarketControls(ctx: Ctx) {
  requireOperator(ctx.actor);
  const prices = sandboxOf(ctx).prices;
  return {
    step: ctx.market.steps,
    allPaused: prices.everythingPaused,
    paused: prices.pausedIds(),
    scripted: prices.scripted().map((instrumentId) => ({ instrumentId, queued: prices.queued(instrumentId) })),
    tickMs: ctx.config.market.tickMs,
  };
}

function checkTwoSided(price: { bid: number; ask: number }, field: string): void {
  if (price.ask < price.bid) {
    throw invalid(field, `must be at least the bid, ${price.bid}; got ${price.ask}`);
  }
}

/** Sets the bid and ask now: one tick of the engine that moves only this instrument. */
export async function setPrice(
  ctx: Ctx,
  instrumentId: number,
  price: { bid: number; ask: number },
): Promise<InstrumentState> {
  requireOperator(ctx.actor);
  const prices = sandboxOf(ctx).prices;
  requireTickingEngine(ctx);
  checkTwoSided(price, "ask");
  await quoteOf(ctx, instrumentId);
  prices.playNext(instrumentId, { bid: price.bid, ask: price.ask });
  await ctx.market.tick({ only: new Set([instrumentId]), manual: true });
  return stateOf(ctx, await quoteOf(ctx, instrumentId));
}

/** `mid` or `bid,ask` per line; a first line that is not numbers is a header. */
export function parsePriceCsv(text: string): ScriptedPrice[] {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const out: ScriptedPrice[] = [];
  for (const [i, line] of lines.entries()) {
    const cells = line.split(/[,;\t]/).map((c) => c.trim());
    const numbers = cells.map(Number);
    const numeric = cells.every((c) => c !== "") && numbers.every((n) => Number.isFinite(n));
    if (!numeric) {
      if (i === 0) continue;
      throw invalid("csv", `line ${i + 1} must be a price or a bid and an ask; got ${JSON.stringify(line)}`);
    }
    if (numbers.length === 1) out.push(numbers[0]!);
    else if (numbers.length === 2) out.push({ bid: numbers[0]!, ask: numbers[1]! });
    else throw invalid("csv", `line ${i + 1} must hold one or two numbers; got ${numbers.length}`);
  }
  if (out.length === 0) throw invalid("csv", "must hold at least one price");
  if (out.length > 10_000) throw invalid("csv", `must hold at most 10000 prices; got ${out.length}`);
  return out;
}

function checkPath(path: readonly ScriptedPrice[], field: string): void {
  for (const [i, p] of path.entries()) {
    if (typeof p === "number") {
      if (!(p > 0) || p > 1e9) throw invalid(`${field}[${i}]`, `must be a price above 0 and at most 1e9; got ${p}`);
    } else {
      if (!(p.bid > 0) || !(p.ask > 0) || p.ask > 1e9) {
        throw invalid(`${field}[${i}]`, "must have a bid and an ask above 0 and at most 1e9");
      }
      checkTwoSided(p, `${field}[${i}].ask`);
    }
  }
}

export interface PlayPathInput {
  prices?: readonly ScriptedPrice[] | undefined;
  csv?: string | undefined;
  run?: "now" | "ticks" | undefined;
}

/** Plays a path: at once (a tick per price, only this instrument moving), or queued for the engine's ticks. */
export async function playPath(ctx: Ctx, instrumentId: number, input: PlayPathInput) {
  requireOperator(ctx.actor);
  const prices = sandboxOf(ctx).prices;
  if ((input.prices === undefined) === (input.csv === undefined)) {
    throw invalid("prices", "give exactly one of {prices} or {csv}");
  }
  const path = input.prices ?? parsePriceCsv(input.csv ?? "");
  checkPath(path, input.prices ? "prices" : "csv");
  requireTickingEngine(ctx);
  await quoteOf(ctx, instrumentId);
  prices.enqueue(instrumentId, path);
  let played = 0;
  if ((input.run ?? "now") === "now") {
    const only = new Set([instrumentId]);
    while (prices.queued(instrumentId) > 0) {
      await ctx.market.tick({ only, manual: true });
      played += 1;
    }
  }
  const quote = await quoteOf(ctx, instrumentId);
  return { instrumentId, played, queued: prices.queued(instrumentId), quote };
}

async function checkInstruments(ctx: Ctx, ids: readonly number[] | undefined): Promise<void> {
  if (!ids) return;
  const found = await currentQuotes(ctx, ids);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw new AppError("NotFound", `Instrument ${missing.join(", ")} was not found`);
}

/** Timed ticks leave these instruments (or all) where they are; a manual step still moves them. */
export async function pausePrices(ctx: Ctx, instrumentIds: readonly number[] | undefined) {
  requireOperator(ctx.actor);
  const prices = sandboxOf(ctx).prices;
  await checkInstruments(ctx, instrumentIds);
  prices.pause(instrumentIds);
  return readMarketControls(ctx);
}

/** Timed ticks move these instruments (or all: the global pause and every single one lifted) again. */
export async function resumePrices(ctx: Ctx, instrumentIds: readonly number[] | undefined) {
  requireOperator(ctx.actor);
  const prices = sandboxOf(ctx).prices;
  await checkInstruments(ctx, instrumentIds);
  prices.resume(instrumentIds);
  return readMarketControls(ctx);
}

/** Runs the engine `ticks` times now: scripted prices play (paused or not), unpaused instruments walk. */
export async function stepMarket(ctx: Ctx, ticks = 1) {
  requireOperator(ctx.actor);
  sandboxOf(ctx);
  requireTickingEngine(ctx);
  let moved: Quote[] = [];
  for (let i = 0; i < ticks; i++) moved = await ctx.market.tick({ manual: true });
  return { step: ctx.market.steps, ticks, moved };
}
