import type { FastifyBaseLogger } from "fastify";

type Bindings = Record<string, unknown>;
/** Pino's logger, as the app's is (buildApp passes `deps.log`). */
type Pino = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
type LogMethod = "fatal" | "error" | "warn" | "info" | "debug" | "trace";

/**
 * A request's logger (`request.log`) that becomes pino's child logger only when something is
 * logged at an enabled level. Fastify makes one per request; a child serializes its bindings
 * (the request id) when made, which a busy server at LOG_LEVEL=warn pays for and never uses.
 * Lines logged through it are exactly the child's (docs/decisions/0081).
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  private get real(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return ((this.made ?? this.parent) as Pino).isLevelEnabled(level);
  }

  private write(level: LogMethod, args: unknown[]): void {
    if (this.isLevelEnabled(level)) (this.real[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write("fatal", args);
  }
  error(...args: unknown[]): void {
    this.write("error", args);
  }
  warn(...args: unknown[]): void {
    this.write("warn", args);
  }
  info(...args: unknown[]): void {
    this.write("info", args);
  }
  debug(...args: unknown[]): void {
    this.write("debug", args);
  }
  trace(...args: unknown[]): void {
    this.write("trace", args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: object): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: lazy unless the route asks for its own log level. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: object): FastifyBaseLogger {
  if (Object.keys(options).length > 0) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings) as unknown as FastifyBaseLogger;
}
