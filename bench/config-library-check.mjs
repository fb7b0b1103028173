#!/usr/bin/env node
// Would a schema library parse our settings as strictly as src/config does? (docs/decisions/0086)
// `npm run build && node bench/config-library-check.mjs`: feeds the same environment values to
// loadConfig and to the two schema validators already installed, each used as its docs show for
// environment variables: TypeBox (Value.Default + Value.Convert + Value.Check) and Ajv with
// env-schema's options (coerceTypes, useDefaults, allErrors). Prints where they disagree.
import { Ajv } from "ajv";
import Type from "typebox";
import Value from "typebox/value";
import { ConfigError, loadConfig } from "../dist/config.js";

/** The settings whose rule a schema can state: whole numbers in a range, decimals, enums, booleans. */
const SCHEMAS = {
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  LOG_LEVEL: Type.Union(["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((l) => Type.Literal(l))),
  SEED: Type.Union(["auto", "always", "never"].map((l) => Type.Literal(l))),
  AUTH_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 60000 }),
  BODY_LIMIT: Type.Integer({ minimum: 1024 }),
  RATE_LIMITS_ENABLED: Type.Boolean(),
  MARKET_SEED: Type.Integer({ minimum: 0, maximum: 4294967295 }),
  MARKET_VOLATILITY: Type.Number({ minimum: 0, maximum: 0.1 }),
  MARKET_SPREAD_BPS: Type.Number({ minimum: 0, maximum: 1000 }),
  ACCESS_TOKEN_TTL: Type.Integer({ minimum: 60, maximum: 86400 }),
  WATCHLIST_MAX_ITEMS: Type.Integer({ minimum: 1, maximum: 100000 }),
  READ_CACHE_MB: Type.Integer({ minimum: 0, maximum: 4096 }),
};

/** Values a user may type: the good, the typo, and what a loose number parser lets through. */
const INPUTS = {
  PORT: ["9000", "eighty", "1e3", "0x1F90", " 9000", "9000.0", "", "-0", "65536"],
  LOG_LEVEL: ["warn", "loud", "WARN", ""],
  SEED: ["never", "maybe", ""],
  AUTH_CACHE_TTL_MS: ["500", "1e3", "0.5", "true"],
  BODY_LIMIT: ["2048", "2e3", "0x800", "2048 "],
  RATE_LIMITS_ENABLED: ["false", "yes", "0", "1", "FALSE"],
  MARKET_SEED: ["7", "-1", "7.0", "0b111"],
  MARKET_VOLATILITY: ["0.002", "2e-3", "0.5", ".001", "NaN"],
  MARKET_SPREAD_BPS: ["1.5", "-2", "1e2", "Infinity"],
  ACCESS_TOKEN_TTL: ["600", "6e2", "15m", "600.0"],
  WATCHLIST_MAX_ITEMS: ["50", "5e1", "0"],
  READ_CACHE_MB: ["0", "", "64MB", "0x40"],
};

const ours = (name, value) => {
  try {
    loadConfig({ [name]: value });
    return "accepted";
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return `refused: ${error.problems.join("; ")}`;
  }
};

const typebox = (name, value) => {
  const schema = Type.Object({ [name]: SCHEMAS[name] });
  const parsed = Value.Convert(schema, Value.Default(schema, { [name]: value }));
  if (Value.Check(schema, parsed)) return `accepted as ${JSON.stringify(parsed[name])}`;
  return `refused: ${[...Value.Errors(schema, parsed)].map((e) => e.message).join("; ")}`;
};

const ajv = new Ajv({
  allErrors: true,
  removeAdditional: true,
  useDefaults: true,
  coerceTypes: true,
  allowUnionTypes: true,
});
const ajvCheck = (name, value) => {
  const validate = ajv.compile({ type: "object", properties: { [name]: SCHEMAS[name] } });
  const data = { [name]: value };
  if (validate(data)) return `accepted as ${JSON.stringify(data[name])}`;
  return `refused: ${validate.errors.map((e) => e.message).join("; ")}`;
};

let total = 0;
const looser = { typebox: 0, ajv: 0 };
const stricter = { typebox: 0, ajv: 0 };
for (const [name, values] of Object.entries(INPUTS)) {
  for (const value of values) {
    total++;
    const mine = ours(name, value);
    const results = { typebox: typebox(name, value), ajv: ajvCheck(name, value) };
    const line = [`${name}=${JSON.stringify(value)}`, `  src/config: ${mine}`];
    for (const [lib, result] of Object.entries(results)) {
      const agree = mine.startsWith("accepted") === result.startsWith("accepted");
      if (!agree && result.startsWith("accepted")) looser[lib]++;
      if (!agree && !result.startsWith("accepted")) stricter[lib]++;
      line.push(`  ${lib.padEnd(10)}: ${result}${agree ? "" : "   <-- differs"}`);
    }
    console.log(line.join("\n"));
  }
}
console.log(
  `\n${total} inputs. Accepted where src/config refuses: TypeBox ${looser.typebox}, Ajv (env-schema) ${looser.ajv}. ` +
    `Refused where src/config accepts: TypeBox ${stricter.typebox}, Ajv ${stricter.ajv}.`,
);
