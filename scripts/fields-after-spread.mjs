#!/usr/bin/env node
// Lists the object literals in src/ that begin with a spread and then add a key the spread's type
// lacks (or spread a second object). On Node 20's V8 each such object gets a hidden class of its
// own, a new one per object, which costs allocation and every later property read's inline cache
// (decision 0213). On a hot path, write the fields out or put the spread last.
// Usage: node scripts/fields-after-spread.mjs [path filter, e.g. modules/trading]
import ts from "typescript";

const filter = process.argv[2] ?? "";
if (filter === "--help" || filter === "-h") {
  console.log("usage: node scripts/fields-after-spread.mjs [path filter]   (lists file:line +added keys)");
  process.exit(0);
}
const config = ts.getParsedCommandLineOfConfigFile(
  "tsconfig.json",
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
);
if (!config) throw new Error("tsconfig.json not found: run from the repository's root");
const program = ts.createProgram(
  config.fileNames.filter((f) => f.includes("/src/")),
  config.options,
);
const checker = program.getTypeChecker();
const root = `${process.cwd()}/`;

/** The keys a literal adds after its leading spread: names its type lacks, or "...spread". */
function addedKeys(literal) {
  const [first, ...rest] = literal.properties;
  const known = new Set(
    checker
      .getTypeAtLocation(first.expression)
      .getProperties()
      .map((p) => p.name),
  );
  const added = [];
  for (const p of rest) {
    if (ts.isSpreadAssignment(p)) added.push("...spread");
    else if (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && !known.has(p.name.text)) {
      added.push(p.name.text);
    }
  }
  return added;
}

let count = 0;
for (const file of program.getSourceFiles()) {
  const name = file.fileName.replace(root, "");
  if (!name.startsWith("src/") || !name.includes(filter)) continue;
  const visit = (node) => {
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 1 && ts.isSpreadAssignment(node.properties[0])) {
      const added = addedKeys(node);
      if (added.length > 0) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        console.log(`${name}:${line + 1} +${added.length} ${added.slice(0, 4).join(",")}`);
        count += 1;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
console.error(`${count} literal(s) add a field after a spread`);
