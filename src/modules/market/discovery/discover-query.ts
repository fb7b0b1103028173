import { AppError } from "../../../core/errors.js";
import {
  FIELD_NAMES,
  type FieldValue,
  fieldNamed,
  INSTRUMENT_FIELDS,
  type InstrumentField,
  type InstrumentRecord,
} from "./instrument-fields.js";

/**
 * The Asset Explorer's query language (decision 0135), parsed and applied apart from HTTP so that
 * it can be checked on its own: paging, sort keys, a projection and field filters.
 */

/** Query parameters with a meaning of their own; every other parameter is a field filter. */
export const RESERVED_PARAMS = ["page", "pageSize", "sort", "fields"] as const;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export type Filter =
  | { field: InstrumentField; kind: "equals"; value: FieldValue }
  | { field: InstrumentField; kind: "min" | "max"; value: number };

export interface SortKey {
  field: InstrumentField;
  descending: boolean;
}

export interface DiscoverQuery {
  page: number;
  pageSize: number;
  sort: SortKey[];
  /** The fields to return; undefined = every field. `instrumentId` is always among them. */
  fields: InstrumentField[] | undefined;
  filters: Filter[];
}

/** A 400 naming the parameter, as upstream documents for a malformed query parameter. */
const bad = (param: string, problem: string) =>
  new AppError("BadRequest", `The query parameter ${param} ${problem}.`, [{ field: param, problem }]);

const supported = () => `one of the supported fields (${FIELD_NAMES.join(", ")})`;

/** The fields a comma-separated list names; 400 on an empty entry or a field this catalog does not have. */
export function parseFieldList(param: string, text: string): InstrumentField[] {
  const out: InstrumentField[] = [];
  for (const raw of text.split(",")) {
    const field = fieldNamed(raw);
    if (!field) {
      throw bad(
        param,
        raw.trim() === "" ? "has an empty entry" : `names ${JSON.stringify(raw.trim())}, not ${supported()}`,
      );
    }
    if (!out.includes(field)) out.push(field);
  }
  return out;
}

export function parseSort(text: string): SortKey[] {
  const keys: SortKey[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    const descending = entry.startsWith("-");
    const field = fieldNamed(descending ? entry.slice(1) : entry);
    if (!field) {
      throw bad("sort", entry === "" ? "has an empty entry" : `names ${JSON.stringify(entry)}, not ${supported()}`);
    }
    if (keys.some((k) => k.field === field)) throw bad("sort", `names ${field} twice`);
    keys.push({ field, descending });
  }
  return keys;
}

function parseValue(param: string, field: InstrumentField, text: string): FieldValue {
  const type = INSTRUMENT_FIELDS[field];
  if (type === "string") return text;
  if (type === "boolean") {
    if (text === "true" || text === "false") return text === "true";
    throw bad(param, `must be true or false; got ${JSON.stringify(text)}`);
  }
  const trimmed = text.trim();
  const n = Number(trimmed);
  if (trimmed === "" || !Number.isFinite(n)) throw bad(param, `must be a number; got ${JSON.stringify(text)}`);
  return n;
}

/**
 * One filter parameter: `<field>=value` (equality; text without regard to case), `<field>Min=n`
 * or `<field>Max=n` (a bound, inclusive, on a numeric field).
 */
export function parseFilter(param: string, value: unknown): Filter {
  if (typeof value !== "string") throw bad(param, "must be given once");
  const exact = fieldNamed(param);
  if (exact) return { field: exact, kind: "equals", value: parseValue(param, exact, value) };
  const suffix = param.slice(-3).toLowerCase();
  const bounded = suffix === "min" || suffix === "max" ? fieldNamed(param.slice(0, -3)) : undefined;
  if (!bounded) throw bad(param, `is not a parameter of this operation, nor ${supported()} (with or without Min/Max)`);
  const type = INSTRUMENT_FIELDS[bounded];
  if (type !== "number" && type !== "integer") throw bad(param, `bounds ${bounded}, which is not numeric`);
  return { field: bounded, kind: suffix as "min" | "max", value: parseValue(param, bounded, value) as number };
}

/**
 * The query from the validated paging parameters and the raw others. Paging is checked by the
 * route's schema (422, like every schema violation); the rest is this operation's own language,
 * whose mistakes are upstream's 400.
 */
export function parseDiscoverQuery(query: Readonly<Record<string, unknown>>): DiscoverQuery {
  const page = (query.page as number | undefined) ?? 1;
  const pageSize = (query.pageSize as number | undefined) ?? DEFAULT_PAGE_SIZE;
  const sortText = query.sort;
  const fieldsText = query.fields;
  if (sortText !== undefined && typeof sortText !== "string") throw bad("sort", "must be given once");
  if (fieldsText !== undefined && typeof fieldsText !== "string") throw bad("fields", "must be given once");
  const filters = Object.entries(query)
    .filter(([name, value]) => !(RESERVED_PARAMS as readonly string[]).includes(name) && value !== undefined)
    .map(([name, value]) => parseFilter(name, value));
  return {
    page,
    pageSize,
    sort: sortText === undefined ? [] : parseSort(sortText),
    fields: fieldsText === undefined ? undefined : projection(parseFieldList("fields", fieldsText)),
    filters,
  };
}

/** A projection always carries the instrument's id. */
export const projection = (fields: InstrumentField[]): InstrumentField[] =>
  fields.includes("instrumentId") ? fields : ["instrumentId", ...fields];

export function matches(record: InstrumentRecord, filter: Filter): boolean {
  const value = record[filter.field];
  if (value === undefined) return false;
  if (filter.kind === "min") return (value as number) >= filter.value;
  if (filter.kind === "max") return (value as number) <= filter.value;
  if (typeof value === "string") return value.toLowerCase() === String(filter.value).toLowerCase();
  return value === filter.value;
}

function compareValues(a: FieldValue, b: FieldValue): number {
  if (typeof a === "string" && typeof b === "string") {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return Number(a) - Number(b);
}

/**
 * Orders by each key in turn; an instrument without a key's value comes after those with one, in
 * either direction; ties end by instrumentId ascending, so that pages never overlap.
 */
export function compareRecords(sort: readonly SortKey[]) {
  return (a: InstrumentRecord, b: InstrumentRecord): number => {
    for (const key of sort) {
      const x = a[key.field];
      const y = b[key.field];
      if (x === undefined || y === undefined) {
        if (x !== y) return x === undefined ? 1 : -1;
        continue;
      }
      const c = compareValues(x, y);
      if (c !== 0) return key.descending ? -c : c;
    }
    return (a.instrumentId as number) - (b.instrumentId as number);
  };
}

export function project(record: InstrumentRecord, fields: readonly InstrumentField[] | undefined): InstrumentRecord {
  if (!fields) return record;
  const out: InstrumentRecord = {};
  for (const f of fields) if (record[f] !== undefined) out[f] = record[f]!;
  return out;
}

export interface DiscoverPage {
  page: number;
  pageSize: number;
  totalItems: number;
  items: InstrumentRecord[];
}

/** Filters, sorts, pages and projects `records` as `query` says. */
export function runDiscoverQuery(records: readonly InstrumentRecord[], query: DiscoverQuery): DiscoverPage {
  const kept = records.filter((r) => query.filters.every((f) => matches(r, f))).sort(compareRecords(query.sort));
  const start = (query.page - 1) * query.pageSize;
  return {
    page: query.page,
    pageSize: query.pageSize,
    totalItems: kept.length,
    items: kept.slice(start, start + query.pageSize).map((r) => project(r, query.fields)),
  };
}
