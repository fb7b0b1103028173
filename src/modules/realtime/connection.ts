import { randomUUID } from "node:crypto";
import { admitsAddress, type UserActor } from "../../core/actor.js";
import type { KeyPairRevoked, OAuthGrantRevoked } from "../../core/events.js";
import type { Deps } from "../context.js";
import { findInstrumentDetails } from "../market/find-instruments.js";
import { currentQuotes } from "../market/quotes.js";
import type { RealtimeHub, Subscriber } from "./hub.js";
import { Outbox, type Sink } from "./outbox.js";
import {
  ERROR_MESSAGES,
  type ErrorCode,
  failure,
  MAX_TOPICS,
  parseRequest,
  type Request,
  success,
} from "./protocol.js";
import { rateSnapshot, SNAPSHOT_TYPE } from "./rates.js";
import { mayRead, mayUseChannel, parseTopic, scopesOf, type Topic } from "./topics.js";

/** How a socket's credentials are checked: the HTTP API's own authenticators. */
export interface RealtimeAuthenticators {
  keyPair(apiKey: string, userKey: string): UserActor | null | Promise<UserActor | null>;
  bearer?: (token: string) => Promise<UserActor | { refused: string }>;
}

class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
  ) {
    super(detail ?? code);
  }
}

const MAX_KEY_LENGTH = 512;
/** RFC 6455's close code for a policy the client broke or no longer meets. */
const POLICY_VIOLATION = 1008;

/**
 * One socket's session: the protocol's state machine. Requests are handled one at a time, in
 * order, so replies come in the order asked (the Authenticate reply before anything else).
 * Subscriptions live and die with the socket: a reconnect starts with none.
 */
export class Connection implements Subscriber {
  readonly outbox: Outbox;
  /** Names this socket in the per-user count. */
  readonly id = randomUUID();
  actor: UserActor | undefined;
  private readonly topics = new Set<string>();
  private readonly instruments = new Set<number>();
  private: boolean = false;
  notifications = false;
  private chain: Promise<void> = Promise.resolve();
  private windowStart = 0;
  private windowCount = 0;
  private ended = false;
  /** The access token a bearer-authenticated socket presented: checked again when a grant is revoked. */
  private bearerToken: string | undefined;

  /**
   * @param onAuthenticated told once, when Authenticate succeeds (the server's pending count).
   * @param clientAddress the client's address as the REST API sees it (TRUST_PROXY): a credential
   *   with an IP allow-list authenticates only from an address on it.
   */
  constructor(
    private readonly deps: Deps,
    private readonly auth: RealtimeAuthenticators,
    sink: Sink,
    private readonly closeSocket: (code: number, reason: string) => void,
    private readonly onAuthenticated: () => void,
    private readonly clientAddress: string,
  ) {
    const settings = deps.config.realtime;
    this.outbox = new Outbox(sink, settings.bufferBytes, settings.maxQueuedEvents);
    this.hub.add(this);
  }

  private get hub(): RealtimeHub {
    return this.deps.realtime;
  }

  get userId(): string | undefined {
    return this.actor?.userId;
  }

  get topicCount(): number {
    return this.topics.size;
  }

  /** A text frame from the client. */
  receive(text: string): void {
    if (this.ended) return;
    const parsed = parseRequest(text);
    if (!parsed.ok) {
      this.inTurn(() => this.outbox.reply(parsed.reply));
      return;
    }
    const request = parsed.request;
    if (this.allowOperation()) this.inTurn(() => this.handle(request));
    else this.inTurn(() => this.outbox.reply(failure(request.id, request.operation, "TooManyRequests")));
  }

  /** A binary frame from the client: upstream accepts text only. */
  receiveBinary(): void {
    if (this.ended) return;
    const reply = JSON.stringify({
      success: false,
      errorCode: "BinaryMessagesNotSupported",
      errorMessage: ERROR_MESSAGES.BinaryMessagesNotSupported,
    });
    this.inTurn(() => this.outbox.reply(reply));
  }

  /** Runs after every frame received before it: replies keep the order of the requests. */
  private inTurn(work: () => void | Promise<void>): void {
    this.chain = this.chain.then(work);
  }

  /** The socket closed: the subscriptions go with it. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.outbox.close();
    this.hub.remove(this, this.instruments);
    if (this.actor) this.hub.release(this.actor.userId, this.id);
    this.stopPrivate();
  }

  /**
   * A credential of this socket's user was revoked (decision 0118). A revoked key pair ends the
   * sockets it authenticated; a revoked grant, the bearer sockets whose token no longer verifies
   * (checked once the bearer cache has dropped the grant: its handler runs on the same event).
   */
  credentialRevoked(event: KeyPairRevoked | OAuthGrantRevoked): void {
    const actor = this.actor;
    if (!actor || this.ended) return;
    if (event.type === "KeyPairRevoked") {
      if (actor.via === "key-pair" && actor.credentialId === event.keyPairId) {
        this.closeSocket(POLICY_VIOLATION, "The key pair was revoked");
      }
      return;
    }
    const token = this.bearerToken;
    const bearer = this.auth.bearer;
    if (actor.via !== "oauth" || token === undefined || !bearer) return;
    setImmediate(async () => {
      const result = await bearer(token).catch(() => ({ refused: "unverifiable" }));
      if ("refused" in result && !this.ended) this.closeSocket(POLICY_VIOLATION, "The access token was revoked");
    });
  }

  /** When no socket of the user listens to `private` here any more, its trailing stops are not watched. */
  private stopPrivate(): void {
    if (this.actor && !this.hub.listensPrivate(this.actor.userId)) {
      this.deps.positionUpdates.forgetUser(this.actor.userId);
    }
  }

  private allowOperation(): boolean {
    const { max, windowSeconds } = this.deps.config.realtime.operations;
    const now = this.deps.clock.now().getTime();
    if (now - this.windowStart >= windowSeconds * 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    this.windowCount += 1;
    return this.windowCount <= max;
  }

  private async handle(request: Request): Promise<void> {
    if (this.ended) return;
    try {
      if (request.operation === "Authenticate") await this.authenticate(request);
      else if (request.operation === "Subscribe") await this.subscribe(request);
      else this.unsubscribe(request);
    } catch (error) {
      if (error instanceof Refusal) {
        this.outbox.reply(failure(request.id, request.operation, error.code, error.detail));
      } else {
        this.deps.log.error({ err: error, operation: request.operation }, "realtime operation failed");
        this.outbox.reply(failure(request.id, request.operation, "UnhandledException"));
      }
    }
  }

  private async authenticate(request: Request): Promise<void> {
    if (this.actor) throw new Refusal("SessionAlreadyAuthenticated");
    const data = request.data;
    if (!data) throw new Refusal("DataRequired");
    const actor = await this.identify(data);
    if (this.ended) return;
    if (!admitsAddress(actor, this.clientAddress)) {
      throw new Refusal("Unauthorized", "This key may not be used from this address (its IP allow-list)");
    }
    if (!mayUseChannel(actor)) {
      throw new Refusal("Forbidden", "The credential holds no scope that reads a topic of this channel");
    }
    const cap = this.deps.config.realtime.maxConnectionsPerUser;
    const admitted = await this.hub.claim(actor.userId, this.id, cap);
    if (admitted && this.ended) this.hub.release(actor.userId, this.id);
    if (this.ended) return;
    if (!admitted) {
      this.outbox.reply(
        failure(
          request.id,
          request.operation,
          "TooManyRequests",
          `Too many connections for this user (at most ${cap})`,
        ),
      );
      // After the reply has been written.
      setImmediate(() => this.closeSocket(POLICY_VIOLATION, "Too many connections for this user"));
      return;
    }
    this.actor = actor;
    if (typeof data.accessToken === "string") this.bearerToken = data.accessToken;
    this.onAuthenticated();
    this.hub.authenticated(this, actor.userId);
    this.outbox.reply(success(request.id, request.operation));
  }

  /** The key pair, or (our extension) an OAuth access token in `accessToken`. */
  private async identify(data: Record<string, unknown>): Promise<UserActor> {
    const { apiKey, userKey, accessToken } = data;
    if (accessToken !== undefined) {
      if (apiKey !== undefined || userKey !== undefined) {
        throw new Refusal("Unauthorized", "Send either an access token or the key pair, not both");
      }
      if (typeof accessToken !== "string" || accessToken === "" || !this.auth.bearer) {
        throw new Refusal("Unauthorized", "Access tokens are not accepted by this server");
      }
      const result = await this.auth.bearer(accessToken);
      if ("refused" in result) throw new Refusal("Unauthorized", `The access token was refused: ${result.refused}`);
      return result;
    }
    if (typeof apiKey !== "string" || apiKey === "") throw new Refusal("ApiKeyRequired");
    if (typeof userKey !== "string" || userKey === "") throw new Refusal("UserKeyRequired");
    if (apiKey.length > MAX_KEY_LENGTH || userKey.length > MAX_KEY_LENGTH) throw new Refusal("InvalidKey");
    const actor = await this.auth.keyPair(apiKey, userKey);
    if (!actor) throw new Refusal("InvalidKey", "Key is invalid: unknown, revoked or mismatched key pair");
    return actor;
  }

  private topicsOf(request: Request): Topic[] {
    if (!this.actor) throw new Refusal("Unauthorized", "Authenticate first");
    const data = request.data;
    if (!data) throw new Refusal("DataRequired");
    const names = data.topics;
    if (!Array.isArray(names) || names.length === 0) {
      throw new Refusal("SubscribeFailed", "data.topics must be a non-empty array of topic names");
    }
    const topics = new Map<string, Topic>();
    for (const name of names) {
      const topic = parseTopic(name);
      if (!topic) {
        const shown = typeof name === "string" ? name.slice(0, 100) : JSON.stringify(name)?.slice(0, 100);
        throw new Refusal(
          "SubscribeFailed",
          `Unknown topic ${shown}: topics are instrument:<instrumentId>, private and notifications`,
        );
      }
      topics.set(topic.name, topic);
    }
    return [...topics.values()];
  }

  private async subscribe(request: Request): Promise<void> {
    const topics = this.topicsOf(request);
    const actor = this.actor!;
    for (const topic of topics) {
      if (!mayRead(actor, topic.kind)) {
        throw new Refusal("Forbidden", `${topic.name} needs one of the scopes ${scopesOf(topic.kind).join(", ")}`);
      }
    }
    const added = topics.filter((t) => !this.topics.has(t.name));
    if (this.topics.size + added.length > MAX_TOPICS) {
      throw new Refusal("SubscribeFailed", "Too many subscriptions for session");
    }
    const ids = topics.flatMap((t) => (t.kind === "instrument" ? [t.instrumentId] : []));
    const quotes = ids.length > 0 ? await currentQuotes(this.deps, ids) : new Map();
    const unknown = ids.filter((id) => !quotes.has(id));
    if (unknown.length > 0) {
      throw new Refusal("SubscribeFailed", `Unknown instrument ${unknown.slice(0, 10).join(", ")}`);
    }
    if (this.ended) return;
    const snapshot = request.data?.snapshot === true;
    const details = snapshot && ids.length > 0 ? await findInstrumentDetails(this.deps, ids) : undefined;
    // Before the ack: once a client holds it, every move of its trailing stops is told.
    if (topics.some((t) => t.kind === "private")) await this.deps.positionUpdates.follow(this.deps, actor);
    if (this.ended) return;
    for (const topic of topics) {
      this.topics.add(topic.name);
      if (topic.kind === "private") this.private = true;
      else if (topic.kind === "notifications") this.notifications = true;
      else if (!this.instruments.has(topic.instrumentId)) {
        this.instruments.add(topic.instrumentId);
        this.hub.watch(this, topic.instrumentId, quotes.get(topic.instrumentId)!);
      }
    }
    this.outbox.reply(success(request.id, request.operation));
    if (!details) return;
    for (const id of ids) {
      // The last quote pushed to subscribers: the deltas that follow continue from it.
      const quote = this.hub.lastPushed(id) ?? quotes.get(id)!;
      const closing =
        this.deps.market.candles(id, "OneDay", 2, "desc")[1]?.close ?? details.get(id)?.priceSeed ?? quote.mid;
      const detail = details.get(id);
      const open = detail ? this.deps.marketHours.isOpen(detail.exchangeId, this.deps.clock.now()) : true;
      this.outbox.rate(id, `instrument:${id}`, rateSnapshot(quote, closing, open), undefined, SNAPSHOT_TYPE);
    }
  }

  private unsubscribe(request: Request): void {
    const topics = this.topicsOf(request);
    for (const topic of topics) {
      this.topics.delete(topic.name);
      if (topic.kind === "private") {
        this.private = false;
        this.stopPrivate();
      } else if (topic.kind === "notifications") this.notifications = false;
      else if (this.instruments.delete(topic.instrumentId)) this.hub.unwatch(this, topic.instrumentId);
    }
    this.outbox.reply(success(request.id, request.operation));
  }
}
