import { withPrefix } from "../../core/scopes.js";
import type { UserRow } from "./identity.repository.js";
import type { MeView } from "./identity.schemas.js";

/** Account numbers derived from the gcid; documented in docs/decisions/0004-user-identifiers.md. */
export const realCidOf = (gcid: number) => 10_000_000 + gcid;
export const demoCidOf = (gcid: number) => 20_000_000 + gcid;

export interface UserSummary {
  id: string;
  gcid: number;
  username: string;
  firstName: string | null;
  lastName: string | null;
  createdAt: string;
}

export const toUserSummary = (u: UserRow): UserSummary => ({
  id: u.id,
  gcid: u.gcid,
  username: u.username,
  firstName: u.firstName,
  lastName: u.lastName,
  createdAt: u.createdAt,
});

export const toMe = (u: UserRow, scopes: readonly string[], prefix: string): MeView => ({
  gcid: u.gcid,
  realCid: realCidOf(u.gcid),
  demoCid: demoCidOf(u.gcid),
  username: u.username,
  firstName: u.firstName,
  middleName: u.middleName,
  lastName: u.lastName,
  playerLevel: u.playerLevel,
  gender: u.gender,
  language: u.language,
  dateOfBirth: u.dateOfBirth,
  lei: u.lei,
  scopes: scopes.map((s) => withPrefix(s, prefix)),
});
