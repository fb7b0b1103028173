/** Who is calling a use case. Every use case receives one explicitly; none reads headers. */
export type Environment = "demo" | "real";

export interface UserActor {
  readonly kind: "user";
  readonly userId: string;
  readonly gcid: number;
  readonly via: "key-pair" | "oauth";
  /** The key pair id or the OAuth client id the call came through. */
  readonly credentialId: string;
  readonly scopes: readonly string[];
  readonly environment: Environment;
  /** An agent portfolio's user token: the only IPv4 addresses it may be used from (decision 0144). */
  readonly allowedIps?: readonly string[];
}

/**
 * Whether a user's credential may be used from `address`, the client's address as TRUST_PROXY
 * makes it: any, unless the credential has an IP allow-list (decision 0144). An IPv4-mapped IPv6
 * address (`::ffff:1.2.3.4`) counts as its IPv4 address. The REST API and the real-time channel
 * both ask this.
 */
export function admitsAddress(actor: UserActor, address: string): boolean {
  if (!actor.allowedIps || actor.allowedIps.length === 0) return true;
  const ip = address.startsWith("::ffff:") ? address.slice(7) : address;
  return actor.allowedIps.includes(ip);
}

export interface SystemActor {
  readonly kind: "system";
  readonly name: string;
}

export interface AnonymousActor {
  readonly kind: "anonymous";
}

export type Actor = UserActor | SystemActor | AnonymousActor;

export const ANONYMOUS: AnonymousActor = Object.freeze({ kind: "anonymous" });

export function systemActor(name: string): SystemActor {
  return { kind: "system", name };
}
