import type SqliteDatabase from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";

/** What the driver needs of a better-sqlite3 handle: statements by SQL text (cached by the caller). */
export interface StatementSource {
  prepare(sql: string): SqliteDatabase.Statement;
  close(): void;
}

/**
 * Kysely's own SQLite driver lets one query or transaction hold the one connection at a time: a
 * read waited for every open transaction to commit, however long its awaits took (a group commit's
 * batch, decision 0172). This driver keeps the writer's turn-taking and sends reads made outside a
 * transaction to a second, read-only connection on the same file (decision 0186): in WAL mode it
 * reads the last committed state while the writer works, and never waits for it.
 *
 * - A transaction takes the writer for itself from `begin` to `commit`/`rollback`; every statement
 *   of it, reads included, runs there (it sees its own writes).
 * - A statement outside a transaction that is a query (`select`, `with`) SQLite says is read-only
 *   (`Statement.readonly`: not a `with … insert`) runs at once: on the writer while no transaction
 *   holds it (decision 0197: its page cache is warm), else on the reader. Anything else (writes,
 *   pragmas, `begin` on a connection held by hand) waits for the writer's turn like a transaction
 *   of one statement.
 * - Without a reader (`:memory:`, where a second connection would be another database) every
 *   statement takes the writer's turn, as Kysely's driver does.
 *
 * A read outside a transaction sees what was committed when it ran: never a transaction's
 * uncommitted writes, as before (it used to wait for the commit; now it reads the state before it).
 */
export class SplitSqliteDriver implements Driver {
  private readonly turn = new Turn();

  constructor(
    private readonly writer: StatementSource,
    private readonly reader: StatementSource | undefined,
  ) {}

  /**
   * Runs a compiled statement at once, beside Kysely's executor (decision 0202), and gives its
   * rows as SQLite returned them; undefined when it must go through Kysely instead.
   * - In a transaction (`inTransaction`: the statement's executor is a Kysely `Transaction` of this
   *   driver, which holds the writer's turn from `begin` to its end), any statement runs on the
   *   writer, where the transaction's own statements run.
   * - Outside one, a read-only query runs where `SplitConnection` would run it (the idle writer,
   *   else the reader); anything else waits for the writer's turn, which only Kysely's path does.
   * SQLITE_BUSY (the statement did nothing) also leaves it to Kysely's path, which waits and retries.
   */
  runAtOnce(sql: string, parameters: readonly unknown[], inTransaction: boolean): unknown[] | undefined {
    if (inTransaction) {
      const statement = this.writer.prepare(sql);
      try {
        if (statement.reader) return statement.all(parameters);
        statement.run(parameters);
        return [];
      } catch (error) {
        if ((error as { code?: unknown }).code === "SQLITE_BUSY") return undefined;
        throw error;
      }
    }
    return readOutside(this.writer, this.reader, this.turn, sql, parameters);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new SplitConnection(this.writer, this.reader, this.turn);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SplitConnection).takeWriter();
    await connection.executeQuery(CompiledQuery.raw("begin"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as SplitConnection).release();
  }

  async destroy(): Promise<void> {
    this.reader?.close();
    this.writer.close();
  }
}

/** The driver of each adapter `splitSqliteDialect` made: a query's executor names its adapter. */
const driversByAdapter = new WeakMap<object, SplitSqliteDriver>();

/** The split driver whose dialect made `adapter` (an executor's `adapter`), if one did. */
export const splitDriverOf = (adapter: object): SplitSqliteDriver | undefined => driversByAdapter.get(adapter);

/** Kysely's SQLite dialect with the driver above. */
export function splitSqliteDialect(writer: StatementSource, reader: StatementSource | undefined): Dialect {
  const driver = new SplitSqliteDriver(writer, reader);
  return {
    createAdapter: () => {
      const adapter = new SqliteAdapter();
      driversByAdapter.set(adapter, driver);
      return adapter;
    },
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  };
}

/** One acquisition: holds the writer's turn from its first write (or `begin`) until released. */
class SplitConnection implements DatabaseConnection {
  private holding = false;

  constructor(
    private readonly writer: StatementSource,
    private readonly reader: StatementSource | undefined,
    private readonly turn: Turn,
  ) {}

  async takeWriter(): Promise<void> {
    if (this.holding) return;
    await this.turn.take();
    this.holding = true;
  }

  release(): void {
    if (!this.holding) return;
    this.holding = false;
    this.turn.give();
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const rows = this.holding
      ? undefined
      : readOutside(this.writer, this.reader, this.turn, compiled.sql, compiled.parameters);
    if (rows) return { rows: rows as R[] };
    await this.takeWriter();
    const statement = this.writer.prepare(compiled.sql);
    return whenUnlocked(() => run<R>(statement, compiled.parameters));
  }

  // biome-ignore lint/correctness/useYield: nothing here streams (Kysely's interface wants it)
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming is not supported on SQLite here");
  }
}

/**
 * What may run on the reader: a query (`select`, `with`) that SQLite also calls read-only. Not a
 * `pragma` (a connection's own setting: `synchronous`, `max_page_count`, whose value is the
 * writer's) nor `begin`/`savepoint`, which SQLite calls read-only too.
 */
const QUERY = /^\s*(select|with)\b/i;

/**
 * The rows of a statement made outside a transaction, run at once if it is a read-only query: on
 * the writer while no transaction holds it, else on the reader. Undefined when it is not (or there
 * is no reader): it then waits for the writer's turn.
 */
function readOutside(
  writer: StatementSource,
  reader: StatementSource | undefined,
  turn: Turn,
  sql: string,
  parameters: readonly unknown[],
): unknown[] | undefined {
  if (!reader || !QUERY.test(sql)) return undefined;
  const idle = turn.idle ? idleRead(writer, sql, parameters) : undefined;
  if (idle) return idle;
  const statement = preparedOn(reader, sql);
  return statement?.readonly ? statement.all(parameters) : undefined;
}

/**
 * A read made on the writer while no transaction holds it (decision 0197): it sees the last commit,
 * as the reader would, and the writer's page cache is warm. The reader's is not: SQLite drops a
 * connection's whole page cache when another connection has written since its last read, which
 * under a steady trickle of writes is nearly every read. Undefined when the statement is not a
 * read-only query there, or the file is busy (recovery by another process): the reader then runs it.
 */
function idleRead(writer: StatementSource, sql: string, parameters: readonly unknown[]): unknown[] | undefined {
  const statement = preparedOn(writer, sql);
  if (!statement?.readonly) return undefined;
  try {
    return statement.all(parameters);
  } catch (error) {
    if ((error as { code?: unknown }).code === "SQLITE_BUSY") return undefined;
    throw error;
  }
}

/** The statement on the reader, or undefined when the reader cannot prepare it (the writer will say why). */
function preparedOn(source: StatementSource, sql: string): SqliteDatabase.Statement | undefined {
  try {
    return source.prepare(sql);
  } catch {
    return undefined;
  }
}

function run<R>(statement: SqliteDatabase.Statement, parameters: readonly unknown[]): QueryResult<R> {
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    numAffectedRows: BigInt(changes),
    insertId: BigInt(lastInsertRowid),
    rows: [],
  };
}

/** How long a statement waits for a file another connection has locked (busy_timeout was 5 s). */
export const LOCKED_WAIT_MS = 5_000;

/**
 * Runs `statement` now, or again after a pause while another connection (a CLI command, a worker
 * thread's bulk write) holds the file's write lock: SQLITE_BUSY means the statement did nothing,
 * so running it again is safe. The pauses grow from 1 ms to 50 ms; after LOCKED_WAIT_MS the
 * error is the caller's (a 503, decision 0107). The event loop keeps serving meanwhile.
 */
async function whenUnlocked<T>(statement: () => T): Promise<T> {
  const deadline = Date.now() + LOCKED_WAIT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      return statement();
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** The writer's turns, first come first served. */
class Turn {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  /** Nobody holds the writer: no transaction is open on it. */
  get idle(): boolean {
    return !this.held;
  }

  take(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}
