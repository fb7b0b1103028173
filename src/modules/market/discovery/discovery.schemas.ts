import { type TSchema, Type } from "typebox";
import { Int32 } from "../../../http/schemas.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./discover-query.js";
import { FIELD_NAMES, INSTRUMENT_FIELDS } from "./instrument-fields.js";
import { SHORTENER_NAMES } from "./shorteners.js";

const FIELD_SCHEMAS: Record<string, () => TSchema> = {
  integer: () => Type.Integer(),
  number: () => Type.Number(),
  string: () => Type.String(),
  boolean: () => Type.Boolean(),
};

/** Upstream's `Instrument`: every field optional (a projection or missing data leaves it out). */
export const InstrumentItem = Type.Object(
  Object.fromEntries(FIELD_NAMES.map((f) => [f, Type.Optional(FIELD_SCHEMAS[INSTRUMENT_FIELDS[f]]!())])),
  {
    description:
      "An instrument; only the fields asked for, and those the catalog has data for (price changes need a " +
      "previous close). `marketCap` (USD) is this server's addition.",
  },
);

const FIELDS_PARAM = Type.Optional(
  Type.String({
    description:
      "Comma-separated Instrument fields to return (any case; instrumentId is always returned); all when absent",
  }),
);

export const DiscoverQuery = Type.Object(
  {
    page: Int32({ minimum: 1, default: 1, description: "The 1-based page number" }),
    pageSize: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
    sort: Type.Optional(
      Type.String({
        description:
          "Comma-separated Instrument fields; `-` before a field sorts it descending. Instruments without a value " +
          "come last; ties end by instrumentId",
      }),
    ),
    fields: FIELDS_PARAM,
  },
  {
    description:
      `Any other parameter filters: \`<field>=value\` (equality; text without regard to case), \`<field>Min=n\` and ` +
      `\`<field>Max=n\` (inclusive bounds on numeric fields). Fields: ${FIELD_NAMES.join(", ")}.`,
  },
);

export const DiscoverResponse = Type.Object(
  {
    page: Type.Integer(),
    pageSize: Type.Integer(),
    totalItems: Type.Integer({ description: "Instruments matching every filter" }),
    items: Type.Array(InstrumentItem),
  },
  { description: "A page of the instruments that match" },
);

export const SymbolParams = Type.Object({
  symbol: Type.String({ minLength: 1, maxLength: 40, description: "The trading symbol (any case), e.g. AAPL" }),
});

export const ShortenerParams = Type.Object({
  symbol: Type.String({ minLength: 1, maxLength: 40, description: "The trading symbol (any case), e.g. AAPL" }),
  shortener: Type.String({
    minLength: 1,
    maxLength: 40,
    description: `A field preset: ${SHORTENER_NAMES.join(", ")}`,
  }),
});

export const InstrumentQuery = Type.Object({ fields: FIELDS_PARAM });
