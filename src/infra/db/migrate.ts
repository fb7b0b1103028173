import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Db } from "./database.js";
import { MIGRATIONS } from "./migrations/index.js";

export interface MigrationReport {
  applied: string[];
}

/** Brings the schema up to date; safe to run on every start and from several processes. */
export async function migrateToLatest(db: Db): Promise<MigrationReport> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(MIGRATIONS)) {
        out[name] = { up: (k: Kysely<unknown>) => migration.up(k, db.dialect) };
      }
      return out;
    },
  };
  // The migrator must not see the CamelCasePlugin's renaming of its own bookkeeping tables.
  const plain = db.kysely.withoutPlugins() as unknown as Kysely<unknown>;
  // Modules add migrations independently; a store that applied a later-numbered one first still migrates.
  const migrator = new Migrator({ db: plain, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const message = error instanceof Error ? error.message || error.name : String(error);
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    // No failed migration: the store itself failed (lost connection, locked, read-only file).
    throw new Error(
      failed ? `Migration ${failed} failed: ${message}` : `Could not bring the schema up to date: ${message}`,
      { cause: error },
    );
  }
  return { applied: (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName) };
}
