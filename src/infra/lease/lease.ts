/**
 * A lease names one holder among several instances for a while (the market's leader). The holder
 * calls `acquire` on every period: it renews the lease; anyone else gets it only once it expired.
 */
export interface Lease {
  /** True when more than one instance can compete (a shared store behind the lease). */
  readonly shared: boolean;
  /** Takes the lease if it is free, renews it if this holder has it; true while it is held. */
  acquire(): Promise<boolean>;
  /** Gives the lease up at once (if held), so another instance takes over on its next try. */
  release(): Promise<void>;
  close(): Promise<void>;
}

/** One process alone: the lease is always held. */
export class LocalLease implements Lease {
  readonly shared = false;
  async acquire(): Promise<boolean> {
    return true;
  }
  async release(): Promise<void> {}
  async close(): Promise<void> {}
}
