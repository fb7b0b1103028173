import type { DomainEvent, DomainEventType, EventBus, EventHandler } from "../../core/events.js";

type AnyHandler = (event: DomainEvent) => Promise<void> | void;

/**
 * In-process bus. Handlers run after the publishing transaction has committed; a failing
 * handler is reported and never fails the request that published the event.
 */
export class MemoryEventBus implements EventBus {
  private readonly handlers = new Map<DomainEventType, AnyHandler[]>();

  constructor(private readonly onHandlerError: (error: unknown, event: DomainEvent) => void) {}

  subscribe<T extends DomainEventType>(type: T, handler: EventHandler<T>): void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler as AnyHandler);
    this.handlers.set(type, list);
  }

  async publish(events: readonly DomainEvent[]): Promise<void> {
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

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
