import { Type } from "typebox";
import { BoundedNumber, Int32Id } from "../../http/schemas.js";

/** Quotes beyond a billion are typos, not test prices. */
const Price = (description: string) => BoundedNumber(1e9, { exclusiveMinimum: 0, description });

export const InstrumentParams = Type.Object({ instrumentId: Int32Id({ description: "The instrument's id" }) });

export const UserParams = Type.Object({
  user: Type.String({ minLength: 1, maxLength: 64, description: "The user's username, id (uuid) or gcid" }),
});

export const FaultParams = Type.Object({ faultId: Type.String({ format: "uuid" }) });

export const QuoteView = Type.Object(
  {
    instrumentId: Type.Integer(),
    bid: Type.Number(),
    ask: Type.Number(),
    mid: Type.Number(),
    date: Type.String({ format: "date-time" }),
    priceRateId: Type.Integer({ description: "The tick (the engine's step) that made this price" }),
  },
  { description: "An instrument's price now" },
);

export const InstrumentState = Type.Object({
  quote: QuoteView,
  paused: Type.Boolean({ description: "Whether timed ticks leave it where it is (paused alone or all paused)" }),
  queued: Type.Integer({ description: "Scripted prices still to play" }),
});

export const SetPriceBody = Type.Object(
  {
    bid: Price("The bid to set"),
    ask: Price("The ask to set; at least the bid"),
  },
  { description: "A two-sided price, applied at once by one tick of the engine that moves only this instrument" },
);

const ScriptedPrice = Type.Union([
  Price("A mid price: bid and ask follow from MARKET_SPREAD_BPS"),
  Type.Object({ bid: Price("The bid"), ask: Price("The ask; at least the bid") }),
]);

export const PlayPathBody = Type.Object(
  {
    prices: Type.Optional(
      Type.Array(ScriptedPrice, { minItems: 1, maxItems: 10_000, description: "The path, one price per tick" }),
    ),
    csv: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1_000_000,
        description:
          "The path as CSV, one tick per line: `mid` or `bid,ask`; a first line that is not numbers (a header) is skipped",
      }),
    ),
    run: Type.Optional(
      Type.Union([Type.Literal("now"), Type.Literal("ticks")], {
        description:
          "`now` (default): played at once, one engine tick per price that moves only this instrument; " +
          "`ticks`: queued, one price per tick of the engine (timed ticks while not paused, or `step`)",
      }),
    ),
  },
  { description: "A scripted price path: exactly one of `prices` or `csv`" },
);

export const PlayPathResult = Type.Object({
  instrumentId: Type.Integer(),
  played: Type.Integer({ description: "Prices played now (run=now)" }),
  queued: Type.Integer({ description: "Prices still queued for later ticks" }),
  quote: QuoteView,
});

export const InstrumentsBody = Type.Object(
  {
    instrumentIds: Type.Optional(
      Type.Array(Int32Id(), { minItems: 1, maxItems: 1000, description: "The instruments; absent = all" }),
    ),
  },
  { description: "Which instruments; without `instrumentIds`, every one" },
);

export const MarketState = Type.Object(
  {
    step: Type.Integer({ description: "Ticks so far (the last priceRateId)" }),
    allPaused: Type.Boolean(),
    paused: Type.Array(Type.Integer(), { description: "Instruments paused one by one" }),
    scripted: Type.Array(Type.Object({ instrumentId: Type.Integer(), queued: Type.Integer() }), {
      description: "Instruments with scripted prices still to play",
    }),
    tickMs: Type.Integer({ description: "MARKET_TICK_MS: how often timed ticks run (0 = never)" }),
  },
  { description: "The sandbox's market controls now" },
);

export const StepBody = Type.Object({
  ticks: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: "Ticks to run (default 1)" })),
});

export const StepResult = Type.Object({
  step: Type.Integer(),
  ticks: Type.Integer(),
  moved: Type.Array(QuoteView, { description: "The prices the last tick moved" }),
});

export const ClockView = Type.Object(
  {
    now: Type.String({ format: "date-time", description: "The server's time now" }),
    offsetMs: Type.Integer({ description: "How far ahead of (or behind) the real time it is" }),
    frozen: Type.Boolean({ description: "Whether it stands still" }),
  },
  { description: "The sandbox clock that every expiry, retention and date follows" },
);

export const SetClockBody = Type.Object({
  at: Type.String({ format: "date-time", description: "The time to set" }),
  frozen: Type.Optional(Type.Boolean({ description: "Stand still at `at` (default false: run on from it)" })),
});

export const AdvanceClockBody = Type.Object({
  seconds: Type.Integer({ minimum: 1, maximum: 366 * 86_400, description: "How far to move time forward" }),
});

export const SetBalanceBody = Type.Object({
  balance: BoundedNumber(1e12, { minimum: 0, description: "The demo cash to set, in USD (cents are kept)" }),
});

export const AccountView = Type.Object(
  {
    userId: Type.String(),
    username: Type.String(),
    balance: Type.Number({ description: "Demo cash, USD" }),
    startingBalance: Type.Number({ description: "What the account opened with, USD" }),
    realizedPnl: Type.Number({ description: "Realised profit and loss, USD" }),
  },
  { description: "A user's demo account" },
);

export const ClosedPositions = Type.Object({
  userId: Type.String(),
  closedPositionIds: Type.Array(Type.Integer()),
});

export const ResetWorldBody = Type.Object({
  snapshot: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: "^[A-Za-z0-9_.-]+$",
      description: "A snapshot saved earlier; absent = the seed",
    }),
  ),
});

export const WorldProgress = Type.Object(
  {
    source: Type.String({ description: "`seed` or the snapshot's name" }),
    steps: Type.Array(Type.Object({ step: Type.String(), rows: Type.Integer(), elapsedMs: Type.Integer() }), {
      description: "What was done, in order",
    }),
  },
  { description: "The reset's progress, step by step" },
);

export const SnapshotBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_.-]+$", description: "The snapshot's name" }),
});

export const SnapshotView = Type.Object({
  name: Type.String(),
  tables: Type.Integer(),
  rows: Type.Integer(),
  createdAt: Type.String({ format: "date-time" }),
});

export const SnapshotList = Type.Object({ snapshots: Type.Array(SnapshotView) });

export const FaultKindSchema = Type.Union(
  [Type.Literal("429"), Type.Literal("500"), Type.Literal("503"), Type.Literal("delay")],
  { description: "`429` (with Retry-After), `500`, `503` (with Retry-After), or `delay` (then the call runs)" },
);

export const AddFaultBody = Type.Object(
  {
    credentialId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: "The key pair id or OAuth client id to fault" }),
    ),
    user: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "Instead of credentialId: every credential (key pair or token) of this user (username, id or gcid)",
      }),
    ),
    operation: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "An operationId (`getPriceAlerts`), a route (`GET /api/v1/price-alerts`) or `*`",
    }),
    kind: FaultKindSchema,
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: "Fault the next N calls" })),
    share: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1,
        description: "Instead of count: fault this share of calls, deterministically (0.5 = every second call)",
      }),
    ),
    retryAfterSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 3600, description: "Retry-After of a 429 or 503 (default 2)" }),
    ),
    delayMs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 60_000, description: "How long a `delay` holds the call (default 1000)" }),
    ),
  },
  { description: "A fault to inject: one of credentialId or user, and one of count or share (default count 1)" },
);

export const FaultView = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    credentialId: Type.Union([Type.String(), Type.Null()], { description: "The credential faulted, or null" }),
    userId: Type.Union([Type.String(), Type.Null()], { description: "Or: every credential of this user" }),
    operation: Type.String(),
    kind: FaultKindSchema,
    remaining: Type.Union([Type.Integer(), Type.Null()], { description: "Faults left (count mode)" }),
    share: Type.Union([Type.Number(), Type.Null()], { description: "The share faulted (share mode)" }),
    retryAfterSeconds: Type.Integer(),
    delayMs: Type.Integer(),
    seen: Type.Integer({ description: "Matching calls so far" }),
    injected: Type.Integer({ description: "Faults injected so far" }),
    createdAt: Type.String({ format: "date-time" }),
  },
  { description: "An armed fault" },
);

export const FaultList = Type.Object({ faults: Type.Array(FaultView) });

export const Removed = Type.Object({ removed: Type.Integer() });

export const OperatorKeyView = Type.Object({
  id: Type.String(),
  apiKey: Type.String(),
  userKey: Type.String(),
});

export const StrategyPassView = Type.Object(
  {
    trades: Type.Array(
      Type.Object({
        username: Type.String(),
        action: Type.Union([Type.Literal("open"), Type.Literal("close")]),
        instrumentId: Type.Integer(),
        positionId: Type.Integer(),
      }),
      { description: "The trades made, in order: a roll is its close then its open" },
    ),
    skipped: Type.Array(Type.Object({ username: Type.String(), instrumentId: Type.Integer(), reason: Type.String() }), {
      description: "Trades not made (a closed market, an amount under the minimum) and why",
    }),
  },
  { description: "One pass of the seeded traders' strategy (decision 0174)" },
);
