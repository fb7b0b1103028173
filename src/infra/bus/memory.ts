import type { DomainEvent, DomainEventType, EventBus, EventHandler } from "../../core/events.js";

type AnyHandler = (event: DomainEvent) => Promise<void> | void;

/** Handlers by event type; a failing handler is reported and never stops the others. */
export class HandlerTable {
  private readonly handlers = new Map<DomainEventType, AnyHandler[]>();

  constructor(private readonly onHandlerError: (error: unknown, event: DomainEvent) => void) {}

  add<T extends DomainEventType>(type: T, handler: EventHandler<T>): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler as AnyHandler);
    this.handlers.set(type, list);
  }

  async run(events: readonly DomainEvent[]): Promise<void> {
    for (const event of events) {
      for (const handler of this.handlers.get(event.type) ?? []) {
        try {
          await handler(event);
        } catch (error) {
          this.onHandlerError(error, event);
        }
      }
    }
  }

  clear(): void {
    this.handlers.clear();
  }
}

/**
 * In-process bus for a single instance. Handlers run after the publishing transaction has
 * committed; a failing handler never fails the request that published the event.
 */
export class MemoryEventBus implements EventBus {
  protected readonly once: HandlerTable;
  protected readonly everywhere: HandlerTable;

  constructor(onHandlerError: (error: unknown, event: DomainEvent) => void) {
    this.once = new HandlerTable(onHandlerError);
    this.everywhere = new HandlerTable(onHandlerError);
  }

  subscribe<T extends DomainEventType>(type: T, handler: EventHandler<T>): void {
    this.once.add(type, handler);
  }

  subscribeEverywhere<T extends DomainEventType>(type: T, handler: EventHandler<T>): void {
    this.everywhere.add(type, handler);
  }

  async publish(events: readonly DomainEvent[]): Promise<void> {
    await this.once.run(events);
    await this.everywhere.run(events);
  }

  async close(): Promise<void> {
    this.once.clear();
    this.everywhere.clear();
  }
}
