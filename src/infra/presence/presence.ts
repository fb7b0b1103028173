/**
 * Who holds how many real-time sockets, for the per-user cap (REALTIME_MAX_CONNECTIONS_PER_USER):
 * this process's memory alone, or Redis shared by every instance (redis.ts).
 */
export interface Presence {
  /** Counts `connectionId` for `userId` unless the user already holds `cap`; false = refused. */
  claim(userId: string, connectionId: string, cap: number): Promise<boolean>;
  release(userId: string, connectionId: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryPresence implements Presence {
  private readonly byUser = new Map<string, Set<string>>();

  async claim(userId: string, connectionId: string, cap: number): Promise<boolean> {
    const held = this.byUser.get(userId) ?? new Set<string>();
    if (held.size >= cap && !held.has(connectionId)) return false;
    held.add(connectionId);
    this.byUser.set(userId, held);
    return true;
  }

  async release(userId: string, connectionId: string): Promise<void> {
    const held = this.byUser.get(userId);
    held?.delete(connectionId);
    if (held?.size === 0) this.byUser.delete(userId);
  }

  async close(): Promise<void> {
    this.byUser.clear();
  }
}
