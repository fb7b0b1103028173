import type { Auth, Credentials } from "./credentials.js";

/** The part of a WebSocket the client uses: the browser's, Node 22's global one, or the `ws` package's. */
export interface WebSocketLike {
  readonly readyState: number;
  // Handlers take `never`: any socket's own event types fit; the client reads what it sets below.
  onopen: ((event: never) => void) | null;
  onmessage: ((event: never) => void) | null;
  onclose: ((event: never) => void) | null;
  onerror: ((event: never) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
interface CloseLike {
  code: number;
  reason: string;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** A rate's fields: PascalCase, every value a string (docs/realtime.md). A delta carries the sides that moved. */
export interface RateFields {
  Ask?: string;
  Bid?: string;
  LastExecution?: string;
  UnitMarginAsk?: string;
  UnitMarginBid?: string;
  AskDiscounted?: string;
  BidDiscounted?: string;
  Date?: string;
  PriceRateID?: string;
  InstrumentID?: string;
  IsMarketOpen?: string;
  [field: string]: string | undefined;
}

interface OrderCommon {
  OrderID: number;
  OrderType: number;
  CID: number;
  StatusID: number;
  InstrumentID: number;
  PositionID: number;
  IsBuy: boolean;
  Leverage: number;
  Amount: number;
  RequestToken: string;
  OpenDateTime: string;
  ErrorCode: number;
}
/** `Trading.OrderForOpen.Update`: an open order executed. */
export interface OrderForOpenUpdate extends OrderCommon {
  Rate: number;
  Units: number;
  ExecutedUnits: number;
  StopLossRate: number;
  TakeProfitRate: number;
  IsTslEnabled: boolean;
}
/** `Trading.OrderForCloseMultiple.Update`: a position closed (by you, a stop-loss, take-profit or trailing stop). */
export interface OrderForCloseUpdate extends OrderCommon {
  UnitsToDeduct: number;
  ExecutedUnits: number;
  EndRate: number;
  NetProfit: number;
  /** 0 manual, 1 stop-loss, 2 take-profit, 3 trailing stop. */
  CloseReason: number;
  CloseReasonName: string;
  IsFullyClosed: boolean;
}
/** `Trading.PositionUpdate`: a position's stop-loss moved (a trailing stop). */
export interface PositionUpdate {
  PositionID: number;
  OrderID: number;
  CID: number;
  InstrumentID: number;
  IsBuy: boolean;
  StopLossRate: number;
  TakeProfitRate: number;
  IsTslEnabled: boolean;
  Date: string;
}

/** One pushed message with its content parsed. */
export interface Pushed {
  topic: string;
  type: string;
  id: string;
  content: unknown;
}

export interface RealtimeEvents {
  /** A rate of `instrument:<id>`: `fields` as pushed (the snapshot or a delta), `rate` every field so far. */
  rate: { instrumentId: number; snapshot: boolean; fields: RateFields; rate: RateFields };
  orderForOpen: OrderForOpenUpdate;
  orderForClose: OrderForCloseUpdate;
  positionUpdate: PositionUpdate;
  /** Our `notifications` topic: the item GET /api/v1/notifications/messages lists. */
  notification: Record<string, unknown>;
  /** Every pushed message, the above included. */
  message: Pushed;
  /** Authenticated (and subscriptions restored) on a new socket. */
  connected: { reconnect: boolean };
  /** The socket closed; `retryInMs` when a reconnect follows. */
  disconnected: { code: number; reason: string; retryInMs: number | undefined };
}
type Listener<T> = (event: T) => void;

/** A refused request: the reply's errorCode and errorMessage (docs/realtime.md, "Errors"). */
export class RealtimeError extends Error {
  override readonly name = "RealtimeError";
  constructor(
    readonly operation: string,
    readonly errorCode: string,
    readonly errorMessage: string,
  ) {
    super(`${operation} refused: ${errorCode}: ${errorMessage}`);
  }
}

export interface RealtimeOptions {
  /** `ws://HOST:PORT/ws`. */
  url: string;
  /** A key pair, a bearer token, or a REST client's `auth` (shares its refreshed token). */
  credentials: Credentials | Auth;
  /** Default: the global WebSocket (browsers, Node 22); on Node 20 pass `ws`'s default export. */
  WebSocket?: WebSocketConstructor;
  /** Reconnect with exponential backoff between these bounds (default 250 ms → 15 s); false: never. */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number } | false;
  /** How long a request waits for its reply (default 10 s). */
  replyTimeoutMs?: number;
}

const OPEN = 1;
/** Close codes after which reconnecting would be refused the same way (policy, too big). */
const FINAL_CLOSE_CODES = new Set([1008, 1009]);
const RECENT = 100;
const REMEMBERED = new Set<keyof RealtimeEvents>(["orderForOpen", "orderForClose", "positionUpdate", "notification"]);

const isAuth = (c: Credentials | Auth): c is Auth => typeof (c as Auth).realtime === "function";

/**
 * The real-time channel: authenticates, subscribes (with snapshot), delivers typed rate and
 * private events, and after a dropped socket reconnects with backoff, authenticates again and
 * restores every subscription.
 */
export class RealtimeClient {
  private ws: WebSocketLike | undefined;
  private readonly topics = new Set<string>();
  private readonly listeners = new Map<keyof RealtimeEvents, Set<Listener<never>>>();
  private readonly pending = new Map<string, { resolve: () => void; reject: (e: Error) => void; timer: unknown }>();
  private readonly rates = new Map<number, RateFields>();
  /** The last RECENT private events of each kind, for waitFor. */
  private readonly recent = new Map<keyof RealtimeEvents, unknown[]>();
  private closedByUser = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private connecting: Promise<void> | undefined;

  constructor(private readonly options: RealtimeOptions) {}

  on<K extends keyof RealtimeEvents>(event: K, listener: Listener<RealtimeEvents[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  /**
   * The first `event` for which `match` holds: one of the last private events received (so an
   * order's event that arrived before its REST answer is not missed), else the next one.
   */
  waitFor<K extends keyof RealtimeEvents>(
    event: K,
    match: (e: RealtimeEvents[K]) => boolean = () => true,
    timeoutMs = 30_000,
  ): Promise<RealtimeEvents[K]> {
    const seen = (this.recent.get(event) ?? []) as RealtimeEvents[K][];
    const already = seen.find(match);
    if (already !== undefined) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no ${event} within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on(event, (e) => {
        if (!match(e)) return;
        clearTimeout(timer);
        off();
        resolve(e);
      });
    });
  }

  /** Every field of an instrument's rate so far. */
  rate(instrumentId: number): RateFields | undefined {
    return this.rates.get(instrumentId);
  }

  /** Opens the socket and authenticates; resolves once the channel is ready. */
  connect(): Promise<void> {
    this.closedByUser = false;
    this.connecting ??= this.open(false)
      .catch(async (error: unknown) => {
        // A bearer token refused (expired): refresh it once through the REST client's auth, then retry.
        if (await this.refreshed(error)) return this.open(false);
        throw error;
      })
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }

  /** Subscribes (all or nothing); remembered, and subscribed again after a reconnect. */
  async subscribe(topics: string[], options: { snapshot?: boolean } = {}): Promise<void> {
    await this.request("Subscribe", { topics, snapshot: options.snapshot ?? false });
    for (const t of topics) this.topics.add(t);
  }

  async unsubscribe(topics: string[]): Promise<void> {
    for (const t of topics) this.topics.delete(t);
    await this.request("Unsubscribe", { topics });
  }

  /** Closes the socket for good (no reconnect). */
  close(): void {
    this.closedByUser = true;
    clearTimeout(this.timer);
    this.ws?.close(1000, "bye");
    this.ws = undefined;
  }

  private emit<K extends keyof RealtimeEvents>(event: K, value: RealtimeEvents[K]): void {
    if (REMEMBERED.has(event)) {
      const list = this.recent.get(event) ?? [];
      list.push(value);
      if (list.length > RECENT) list.shift();
      this.recent.set(event, list);
    }
    for (const l of this.listeners.get(event) ?? []) (l as Listener<RealtimeEvents[K]>)(value);
  }

  private async open(reconnect: boolean): Promise<void> {
    const Ctor = this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Ctor) throw new Error("No WebSocket: pass options.WebSocket (e.g. the `ws` package's default export)");
    const ws = new Ctor(this.options.url);
    this.ws = ws;
    try {
      await new Promise<void>((resolve, reject) => {
        ws.onopen = () => resolve();
        ws.onerror = () => reject(new Error(`cannot connect to ${this.options.url}`));
        ws.onclose = (e: CloseLike) => reject(new Error(`WebSocket closed ${e.code} ${e.reason}`));
      });
      ws.onmessage = (e: { data: unknown }) => this.receive(e.data);
      ws.onerror = () => {};
      ws.onclose = (e: CloseLike) => this.dropped(ws, e.code, e.reason);
      await this.request("Authenticate", await this.authenticateData());
      if (this.topics.size > 0) await this.request("Subscribe", { topics: [...this.topics], snapshot: true });
    } catch (error) {
      // This socket is done with: only the caller (or the reconnect loop) decides what follows.
      ws.onclose = null;
      ws.onmessage = null;
      if (this.ws === ws) this.ws = undefined;
      ws.close();
      throw error;
    }
    this.attempt = 0;
    this.emit("connected", { reconnect });
  }

  /** After a refused Authenticate: true when a REST client's auth got a new access token. */
  private async refreshed(error: unknown): Promise<boolean> {
    const credentials = this.options.credentials;
    if (!(error instanceof RealtimeError && error.errorCode === "Unauthorized" && isAuth(credentials))) return false;
    return credentials.refresh().catch(() => false);
  }

  private async authenticateData(): Promise<Record<string, string>> {
    const credentials = this.options.credentials;
    if (isAuth(credentials)) return credentials.realtime();
    return "apiKey" in credentials
      ? { apiKey: credentials.apiKey, userKey: credentials.userKey }
      : { accessToken: credentials.accessToken };
  }

  private dropped(ws: WebSocketLike, code: number, reason: string): void {
    if (ws !== this.ws) return;
    this.ws = undefined;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer as ReturnType<typeof setTimeout>);
      p.reject(new Error(`socket closed (${code}) before the reply`));
      this.pending.delete(id);
    }
    this.schedule(code, reason);
  }

  /** The next reconnect, after a backoff that doubles with each failed attempt. */
  private schedule(code: number, reason: string): void {
    const policy = this.options.reconnect;
    const retry = !this.closedByUser && policy !== false && !FINAL_CLOSE_CODES.has(code);
    const base = (policy ? policy.initialDelayMs : undefined) ?? 250;
    const max = (policy ? policy.maxDelayMs : undefined) ?? 15_000;
    const retryInMs = retry ? Math.min(max, base * 2 ** this.attempt) : undefined;
    this.emit("disconnected", { code, reason, retryInMs });
    if (retryInMs === undefined) return;
    this.attempt += 1;
    this.timer = setTimeout(() => {
      this.open(true).catch(async (error: unknown) => {
        // An expired bearer token: a REST client's auth can refresh it before the next attempt.
        await this.refreshed(error);
        if (!this.closedByUser) this.schedule(1006, error instanceof Error ? error.message : "reconnect failed");
      });
    }, retryInMs);
  }

  private request(operation: string, data: Record<string, unknown>): Promise<void> {
    const ws = this.ws;
    if (!ws || ws.readyState !== OPEN) return Promise.reject(new Error(`not connected: ${operation}`));
    const id = globalThis.crypto.randomUUID();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no reply to ${operation} within ${this.options.replyTimeoutMs ?? 10_000} ms`));
      }, this.options.replyTimeoutMs ?? 10_000);
      this.pending.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify({ id, operation, data }));
    });
  }

  private receive(data: unknown): void {
    if (typeof data !== "string") return; // the 0x00 keepalive
    const frame = JSON.parse(data) as {
      id?: string;
      success?: boolean;
      operation?: string;
      errorCode?: string;
      errorMessage?: string;
      messages?: { topic: string; type: string; id: string; content: string }[];
    };
    if (!Array.isArray(frame.messages)) {
      const waiting = frame.id === undefined ? undefined : this.pending.get(String(frame.id));
      if (!waiting) return;
      this.pending.delete(String(frame.id));
      clearTimeout(waiting.timer as ReturnType<typeof setTimeout>);
      if (frame.success) waiting.resolve();
      else {
        waiting.reject(
          new RealtimeError(frame.operation ?? "?", frame.errorCode ?? "UnhandledException", frame.errorMessage ?? ""),
        );
      }
      return;
    }
    for (const m of frame.messages) {
      const pushed: Pushed = { topic: m.topic, type: m.type, id: m.id, content: JSON.parse(m.content) };
      this.emit("message", pushed);
      this.dispatch(pushed);
    }
  }

  private dispatch(m: Pushed): void {
    if (m.topic.startsWith("instrument:")) {
      const instrumentId = Number(m.topic.slice("instrument:".length));
      const fields = m.content as RateFields;
      const rate = { ...this.rates.get(instrumentId), ...fields };
      this.rates.set(instrumentId, rate);
      this.emit("rate", { instrumentId, snapshot: m.type === "Snapshot", fields, rate });
      return;
    }
    switch (m.type) {
      case "Trading.OrderForOpen.Update":
        this.emit("orderForOpen", m.content as OrderForOpenUpdate);
        return;
      case "Trading.OrderForCloseMultiple.Update":
        this.emit("orderForClose", m.content as OrderForCloseUpdate);
        return;
      case "Trading.PositionUpdate":
        this.emit("positionUpdate", m.content as PositionUpdate);
        return;
      case "Notifications.Notification.Created":
        this.emit("notification", m.content as Record<string, unknown>);
        return;
    }
  }
}
