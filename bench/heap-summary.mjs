// What a heap snapshot holds, by kind of object: shallow bytes and counts, largest first.
//   node bench/heap-summary.mjs FILE.heapsnapshot [--top N]
// Objects are grouped by constructor name (plain objects by their first keys' shape is too fine;
// "Object" stays one group), strings by their first characters' kind, arrays and buffers by type.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" }, help: { type: "boolean", default: false } },
});
if (values.help || positionals.length !== 1) {
  console.log("usage: node bench/heap-summary.mjs FILE.heapsnapshot [--top N]");
  process.exit(values.help ? 0 : 2);
}
const snap = JSON.parse(readFileSync(positionals[0], "utf8"));
const { node_fields: fields, node_types: types } = snap.snapshot.meta;
const width = fields.length;
const at = (name) => fields.indexOf(name);
const [TYPE, NAME, SIZE] = [at("type"), at("name"), at("self_size")];
const typeNames = types[TYPE];
const groups = new Map();
let total = 0;
for (let i = 0; i < snap.nodes.length; i += width) {
  const type = typeNames[snap.nodes[i + TYPE]];
  const size = snap.nodes[i + SIZE];
  total += size;
  const name = snap.strings[snap.nodes[i + NAME]];
  const key =
    type === "object" || type === "closure" || type === "native"
      ? `${type} ${name.slice(0, 60)}`
      : type === "string" || type === "concatenated string" || type === "sliced string"
        ? `${type} (${name.length > 30 ? "long" : "short"})`
        : `${type} ${type === "hidden" || type === "array" ? name.slice(0, 40) : ""}`;
  const g = groups.get(key) ?? { bytes: 0, count: 0 };
  g.bytes += size;
  g.count += 1;
  groups.set(key, g);
}
const mb = (b) => (b / 2 ** 20).toFixed(1);
console.log(`${mb(total)} MB in ${snap.nodes.length / width} objects`);
for (const [key, g] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(values.top))) {
  console.log(`${mb(g.bytes).padStart(7)} MB ${String(g.count).padStart(9)}  ${key}`);
}
