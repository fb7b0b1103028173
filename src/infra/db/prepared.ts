import { CamelCasePlugin, type Compilable, type CompiledQuery, createQueryId, type RootOperationNode } from "kysely";
import type { Executor } from "./executor.js";
import { splitDriverOf } from "./sqlite-driver.js";

/** A value argument, or a list of them (an `in (…)` list): its length is part of the shape. */
type Value = unknown;

/**
 * Where a compiled parameter comes from: an argument (`item` -1 = the whole value, else one item of
 * a list), or, when `arg` is -1, a constant of the builder. One shape for both, so the loop that
 * binds them reads one kind of object.
 */
interface Slot {
  arg: number;
  item: number;
  constant: unknown;
}

interface Template {
  sql: string;
  query: RootOperationNode;
  slots: Slot[];
}

/** Marks a bound value while a template is compiled; never seen by a database. */
const MARK = "\u0000sta-bind:";
const MAX_TEMPLATES = 500;
const marker = (arg: number, item: number) => `${MARK}${arg}:${item}`;

/**
 * A query (a read, or a one-row insert: see `insertShape`) with a fixed shape whose values change
 * from call to call, built and compiled by Kysely once per shape and executor setup, then run with
 * fresh values (docs/decisions/0079).
 *
 * Building and compiling a Kysely query costs more than running an indexed SQLite read (a query
 * with a few subqueries: ~100 µs against ~15 µs). `build` is called with stand-in values of the
 * same shape (lists of the same lengths), the compiled parameters that are stand-ins are mapped
 * back to argument positions, and later calls only substitute values. So `build` must use its
 * values as values only (no arithmetic, no branching on them): whatever changes the SQL text
 * belongs in `shape`, whose `shapeKey` names the variant.
 *
 * The executor's plugins are part of the cache key, and the SQL text is the one Kysely compiled for
 * this executor's dialect.
 *
 * On SQLite the statement runs at once on the driver's connection when it may (decision 0202:
 * `SplitSqliteDriver.runAtOnce`), without Kysely's executor and its connection provider, which
 * cost more than the statement itself and some 6 KB of garbage each. Its rows get the names the
 * camel-case plugin would give them (an executor with other plugins keeps Kysely's path, where
 * every plugin sees every result). Inside a transaction it runs when called, not a few microtasks
 * later, and without Kysely's check that the transaction is still open: callers await each
 * statement of a transaction before its work returns, as they must on one connection anyway.
 */
export function prepared<S, V extends readonly Value[], O>(
  build: (db: Executor, shape: S, values: V) => Compilable<O>,
  shapeKey: (shape: S) => string,
): (db: Executor, shape: S, values: V) => Promise<O[]> {
  const templates = new Map<string, Template>();
  return async (db, shape, values) => {
    const key = templateKey(setupKey(db), shapeKey(shape), values);
    let template = templates.get(key);
    if (!template) {
      template = compileTemplate(db, build, shape, values);
      // Bounded: list lengths vary; the oldest variant goes first.
      if (templates.size >= MAX_TEMPLATES) templates.delete(templates.keys().next().value as string);
      templates.set(key, template);
    }
    const parameters = bind(template.slots, values);
    const { adapter, plugins } = db.getExecutor();
    const driver = splitDriverOf(adapter);
    // Rows are renamed here only as one camel-case plugin would rename them; an executor with any
    // other plugin (or several) keeps Kysely's path, where every plugin sees every result.
    const [plugin] = plugins;
    if (driver && (plugin === undefined || (plugins.length === 1 && plugin instanceof CamelCasePlugin))) {
      const rows = driver.runAtOnce(template.sql, parameters, db.isTransaction);
      if (rows) return plugin ? renamed<O>(rows, plugin) : (rows as O[]);
    }
    const compiled: CompiledQuery<O> = {
      sql: template.sql,
      query: template.query,
      parameters,
      queryId: createQueryId(),
    };
    return (await db.executeQuery(compiled)).rows;
  };
}

/**
 * The SQL text depends on the dialect (its adapter) and the plugins: the same for a root executor
 * and its transactions (which copy the plugin list), different for `withPlugin` variants.
 */
const identities = new WeakMap<object, number>();
let nextIdentity = 0;
const identity = (o: object) => {
  let id = identities.get(o);
  if (id === undefined) {
    nextIdentity += 1;
    id = nextIdentity;
    identities.set(o, id);
  }
  return id;
};
// An executor's adapter and plugins never change (withPlugin makes a new executor): its key is kept.
const setupKeys = new WeakMap<object, string>();
function setupKey(db: Executor): string {
  const executor = db.getExecutor();
  let key = setupKeys.get(executor);
  if (key === undefined) {
    key = [executor.adapter, ...executor.plugins].map(identity).join(".");
    setupKeys.set(executor, key);
  }
  return key;
}

/** Column names with the camel-case names their plugin gives them, per plugin. */
const camelNames = new WeakMap<CamelCasePlugin, Map<string, string>>();

/**
 * SQLite's rows with the plugin's names: what its `mapRow` makes of them. A SQLite value is never
 * a plain object or an array, the only values `mapRow` looks into, so renaming the keys is all.
 */
function renamed<O>(rows: readonly unknown[], plugin: CamelCasePlugin): O[] {
  let known = camelNames.get(plugin);
  if (!known) {
    known = new Map();
    camelNames.set(plugin, known);
  }
  const names = known;
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const key in row as Record<string, unknown>) {
      let name = names.get(key);
      if (name === undefined) {
        // The plugin's own mapping of a name (protected in its type, public at run time).
        name = (plugin as unknown as { camelCase(key: string): string }).camelCase(key);
        names.set(key, name);
      }
      out[name] = (row as Record<string, unknown>)[key];
    }
    return out as O;
  });
}

/**
 * A template's key: the executor's setup, the shape, and what a value's stand-in depends on: how
 * many values there are, and which are lists of what length. `build` sees stand-ins only, never a
 * value, so a value's type does not change the SQL. A call with no list makes a short key of few
 * parts (it is made and hashed on every call; decision 0213).
 */
function templateKey(setup: string, shape: string, values: readonly Value[]): string {
  let lists = "";
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Array.isArray(v)) lists += `${i}:${v.length},`;
  }
  return `${setup}|${shape}|${values.length}|${lists}`;
}

/** The compiled parameters of one call: each slot's constant, argument, or item of a list argument. */
function bind(slots: readonly Slot[], values: readonly Value[]): unknown[] {
  const parameters = new Array<unknown>(slots.length);
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i] as Slot;
    parameters[i] = s.arg < 0 ? s.constant : s.item < 0 ? values[s.arg] : (values[s.arg] as readonly unknown[])[s.item];
  }
  return parameters;
}

function compileTemplate<S, V extends readonly Value[], O>(
  db: Executor,
  build: (db: Executor, shape: S, values: V) => Compilable<O>,
  shape: S,
  values: V,
): Template {
  const stand = values.map((v, arg) => (Array.isArray(v) ? v.map((_, item) => marker(arg, item)) : marker(arg, -1)));
  const compiled = build(db, shape, stand as unknown as V).compile();
  const slots = compiled.parameters.map((p): Slot => {
    if (typeof p !== "string" || !p.startsWith(MARK)) return { arg: -1, item: -1, constant: p };
    const [arg, item] = p.slice(MARK.length).split(":").map(Number) as [number, number];
    return { arg, item, constant: undefined };
  });
  return { sql: compiled.sql, query: compiled.query, slots };
}

/**
 * A row to insert through a prepared query (decision 0199): its columns, which are the query's
 * shape (`shapeKey`: `columns.join()`), and their values, bound per call. Columns whose value is
 * undefined are left out, as Kysely's `values` leaves them out. `rowFrom` puts the row back
 * together inside `build`.
 */
export function insertShape(row: object): [columns: string[], values: unknown[]] {
  const columns: string[] = [];
  const values: unknown[] = [];
  for (const [column, value] of Object.entries(row)) {
    if (value === undefined) continue;
    columns.push(column);
    values.push(value);
  }
  return [columns, values];
}

/** The row of `columns` and their `values` (inside a prepared query's `build`). */
export const rowFrom = <T>(columns: readonly string[], values: readonly unknown[]): T =>
  Object.fromEntries(columns.map((c, i) => [c, values[i]])) as T;
