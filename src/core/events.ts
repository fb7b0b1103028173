/**
 * Domain events: recorded by use cases inside a transaction, published after commit.
 * The in-memory and Redis buses implement the same EventBus interface.
 */
export interface UserRegistered {
  readonly type: "UserRegistered";
  readonly userId: string;
  readonly username: string;
  readonly occurredAt: string;
}

export type DomainEvent = UserRegistered;
export type DomainEventType = DomainEvent["type"];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;

export type EventHandler<T extends DomainEventType> = (event: EventOf<T>) => Promise<void> | void;

export interface EventBus {
  publish(events: readonly DomainEvent[]): Promise<void>;
  subscribe<T extends DomainEventType>(type: T, handler: EventHandler<T>): void;
  close(): Promise<void>;
}
