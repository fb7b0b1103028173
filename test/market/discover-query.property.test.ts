import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors.js";
import {
  type DiscoverQuery,
  parseDiscoverQuery,
  runDiscoverQuery,
} from "../../src/modules/market/discovery/discover-query.js";
import {
  FIELD_NAMES,
  type FieldValue,
  fieldNamed,
  INSTRUMENT_FIELDS,
  type InstrumentRecord,
} from "../../src/modules/market/discovery/instrument-fields.js";

/** A handful of fields of every type, some of them sometimes missing (as price changes are). */
const record = (instrumentId: number) =>
  fc
    .record(
      {
        symbol: fc.constantFrom("AAPL", "aapl", "MSFT", "BTC", "Z"),
        internalExchangeName: fc.constantFrom("NASDAQ", "NYSE", "nasdaq"),
        marketCap: fc.option(
          fc.integer({ min: 0, max: 5 }).map((n) => n * 1e11),
          { nil: undefined },
        ),
        dailyPriceChange: fc.option(fc.double({ min: -5, max: 5, noNaN: true }), { nil: undefined }),
        isOpen: fc.boolean(),
        exchangeID: fc.integer({ min: 1, max: 4 }),
      },
      { requiredKeys: ["symbol", "internalExchangeName", "isOpen", "exchangeID"] },
    )
    .map((r) => {
      const out: InstrumentRecord = { instrumentId };
      for (const [k, v] of Object.entries(r)) if (v !== undefined) out[k] = v as FieldValue;
      return out;
    });

const records = fc
  .uniqueArray(fc.integer({ min: 1, max: 200_000 }), { maxLength: 30 })
  .chain((ids) => fc.tuple(...ids.map(record)).map((rs) => rs as InstrumentRecord[]));

/** A field name as a client might spell it: any mix of case. */
const spelled = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""));

const filterParam = fc.oneof(
  fc.tuple(fc.constant("symbol"), fc.constantFrom("AAPL", "msft", "nothing")),
  fc.tuple(fc.constant("internalExchangeName"), fc.constantFrom("nasdaq", "NYSE")),
  fc.tuple(fc.constant("isOpen"), fc.constantFrom("true", "false")),
  fc.tuple(fc.constant("exchangeID"), fc.integer({ min: 0, max: 5 }).map(String)),
  fc.tuple(
    fc.constantFrom("marketCapMin", "marketCapMax"),
    fc.integer({ min: 0, max: 5 }).map((n) => String(n * 1e11)),
  ),
  fc.tuple(
    fc.constantFrom("dailyPriceChangeMin", "dailyPriceChangeMax"),
    fc.double({ min: -6, max: 6, noNaN: true }).map(String),
  ),
);

const sortKeys = fc
  .uniqueArray(
    fc.constantFrom("symbol", "internalExchangeName", "marketCap", "dailyPriceChange", "isOpen", "exchangeID"),
    {
      maxLength: 3,
    },
  )
  .chain((fields) =>
    fc.tuple(
      ...fields.map((f) => fc.tuple(spelled(f), fc.boolean()).map(([name, desc]) => `${desc ? "-" : ""}${name}`)),
    ),
  );

const rawQuery = fc
  .record({
    filters: fc.uniqueArray(filterParam, { maxLength: 3, selector: ([name]) => name }),
    sort: fc.option(
      sortKeys.filter((k) => k.length > 0),
      { nil: undefined },
    ),
    fields: fc.option(fc.subarray(["symbol", "marketCap", "isOpen", "dailyPriceChange"], { minLength: 1 }), {
      nil: undefined,
    }),
    pageSize: fc.integer({ min: 1, max: 10 }),
  })
  .map(({ filters, sort, fields, pageSize }) => {
    const q: Record<string, unknown> = Object.fromEntries(filters);
    if (sort) q.sort = sort.join(",");
    if (fields) q.fields = fields.join(",");
    q.pageSize = pageSize;
    return q;
  });

/** The filter rules, written out again independently of the implementation. */
function keeps(r: InstrumentRecord, q: Record<string, unknown>): boolean {
  return Object.entries(q).every(([name, raw]) => {
    if (name === "sort" || name === "fields" || name === "pageSize" || name === "page") return true;
    const text = String(raw);
    if (name.endsWith("Min") || name.endsWith("Max")) {
      const v = r[name.slice(0, -3)];
      if (v === undefined) return false;
      return name.endsWith("Min") ? (v as number) >= Number(text) : (v as number) <= Number(text);
    }
    const v = r[name];
    if (v === undefined) return false;
    if (typeof v === "string") return v.toLowerCase() === text.toLowerCase();
    if (typeof v === "boolean") return String(v) === text;
    return v === Number(text);
  });
}

/** Whether `a` may come before `b` under `sort` (missing values last, ties by id). */
function inOrder(a: InstrumentRecord, b: InstrumentRecord, sort: DiscoverQuery["sort"]): boolean {
  for (const { field, descending } of sort) {
    const x = a[field];
    const y = b[field];
    if (x === y) continue;
    if (x === undefined) return false;
    if (y === undefined) return true;
    const [p, r] = typeof x === "string" ? [x.toLowerCase(), (y as string).toLowerCase()] : [Number(x), Number(y)];
    if (p === r) continue;
    return descending ? p > r : p < r;
  }
  return (a.instrumentId as number) < (b.instrumentId as number);
}

describe("the Asset Explorer's query (filters, sort, paging)", () => {
  it("pages partition the filtered, sorted catalog: every item matches, in order, none twice", () => {
    fc.assert(
      fc.property(records, rawQuery, (rs, q) => {
        const first = parseDiscoverQuery(q);
        const byId = new Map(rs.map((r) => [r.instrumentId, r]));
        const seen: number[] = [];
        for (let page = 1; page <= rs.length + 1; page++) {
          const result = runDiscoverQuery(rs, { ...first, page });
          expect(result.items.length).toBeLessThanOrEqual(first.pageSize);
          expect(result.totalItems).toBe(rs.filter((r) => keeps(r, q)).length);
          for (const item of result.items) {
            // The projection keeps the id and only the fields asked for.
            if (first.fields) for (const k of Object.keys(item)) expect(first.fields).toContain(k);
            seen.push(item.instrumentId as number);
          }
          if (result.items.length === 0) break;
        }
        const expected = rs.filter((r) => keeps(r, q)).map((r) => r.instrumentId as number);
        expect([...seen].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
        for (let i = 1; i < seen.length; i++) {
          expect(inOrder(byId.get(seen[i - 1]!)!, byId.get(seen[i]!)!, first.sort)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("field names are read in any case, as upstream's own schema and examples differ (displayname/displayName)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FIELD_NAMES).chain((f) => fc.tuple(fc.constant(f), spelled(f))),
        ([field, name]) => {
          expect(fieldNamed(name)).toBe(field);
          expect(parseDiscoverQuery({ sort: `-${name}` }).sort).toEqual([{ field, descending: true }]);
          expect(parseDiscoverQuery({ fields: name }).fields).toEqual(
            field === "instrumentId" ? ["instrumentId"] : ["instrumentId", field],
          );
        },
      ),
    );
  });

  it("a numeric bound keeps the number it is given", () => {
    const numeric = FIELD_NAMES.filter((f) => INSTRUMENT_FIELDS[f] === "number" || INSTRUMENT_FIELDS[f] === "integer");
    fc.assert(
      fc.property(
        fc.constantFrom(...numeric),
        fc.constantFrom("Min", "Max"),
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
        (field, suffix, n) => {
          const [filter] = parseDiscoverQuery({ [`${field}${suffix}`]: String(n) }).filters;
          expect(filter).toEqual({ field, kind: suffix.toLowerCase(), value: n });
        },
      ),
    );
  });

  it("anything else is a 400 naming the parameter", () => {
    const notAField = fc
      .string({ minLength: 1, maxLength: 20 })
      .filter((s) => !["page", "pageSize", "sort", "fields"].includes(s))
      .filter((s) => !fieldNamed(s) && !(/(min|max)$/i.test(s) && fieldNamed(s.slice(0, -3))));
    const rejected = (q: Record<string, unknown>, param: string) => {
      try {
        parseDiscoverQuery(q);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).status).toBe(400);
        expect((error as AppError).problems?.[0]?.field).toBe(param);
        return;
      }
      throw new Error(`accepted ${JSON.stringify(q)}`);
    };
    fc.assert(
      fc.property(notAField, fc.string(), (name, value) => {
        rejected({ [name]: value }, name);
        // `-name` would sort by `name` descending: only a name that is not a field either way.
        if (!name.trim().startsWith("-")) rejected({ sort: `symbol,${name}` }, "sort");
        rejected({ fields: `symbol,${name}` }, "fields");
      }),
    );
    const textOrFlag = FIELD_NAMES.filter(
      (f) => INSTRUMENT_FIELDS[f] === "string" || INSTRUMENT_FIELDS[f] === "boolean",
    );
    fc.assert(
      fc.property(fc.constantFrom(...textOrFlag), fc.constantFrom("Min", "Max"), (field, suffix) =>
        rejected({ [`${field}${suffix}`]: "1" }, `${field}${suffix}`),
      ),
    );
    const numeric = FIELD_NAMES.filter((f) => INSTRUMENT_FIELDS[f] === "number" || INSTRUMENT_FIELDS[f] === "integer");
    fc.assert(
      fc.property(
        fc.constantFrom(...numeric),
        fc.string().filter((s) => s.trim() === "" || !Number.isFinite(Number(s))),
        (field, value) => rejected({ [field]: value }, field),
      ),
    );
  });
});
