import type { Kysely, Transaction } from "kysely";
import type { Database } from "./schema.js";

/** Repositories take an executor: the root connection or a transaction, their caller decides. */
export type Executor = Kysely<Database> | Transaction<Database>;
