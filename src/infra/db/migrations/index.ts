import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";
import * as foundation from "./001-foundation.js";

export interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** Applied in key order; never edit a migration that has shipped, add a new one. */
export const MIGRATIONS: Record<string, DialectMigration> = {
  "001-foundation": foundation,
};
