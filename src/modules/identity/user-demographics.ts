import type { Deps } from "../context.js";
import { identityRepository } from "./identity.repository.js";

const DEMOGRAPHIC_COLUMNS = ["id", "gender", "dateOfBirth", "countryCode"] as const;

/** What a user told about themselves that aggregate reads may show in categories (never as is). */
export interface Demographics {
  /** 0 unknown, 1 male, 2 female. */
  gender: number;
  /** ISO date, or "" when not given. */
  dateOfBirth: string;
  /** ISO 3166-1 numeric; 0 unknown. */
  countryCode: number;
}

/** Batch load by internal user id; unknown ids are absent. One query. */
export async function userDemographics(
  deps: Pick<Deps, "db">,
  ids: readonly string[],
): Promise<Map<string, Demographics>> {
  const rows = await identityRepository(deps.db.kysely).findUsersByIds([...new Set(ids)], DEMOGRAPHIC_COLUMNS);
  return new Map(rows.map((u) => [u.id, { gender: u.gender, dateOfBirth: u.dateOfBirth, countryCode: u.countryCode }]));
}
