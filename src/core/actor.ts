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
