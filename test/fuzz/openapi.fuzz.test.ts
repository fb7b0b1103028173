/**
 * Fuzzes every operation of our own OpenAPI document (the built app's /openapi.json), on SQLite
 * and PostgreSQL, through app.inject (the socket-only malformations are in socket.fuzz.test.ts).
 *
 * Two parts per engine:
 * - the sweep: every parameter and every body field of every operation gets each hostile value
 *   of its kind (non-finite and huge numbers, 32/64-bit edges, NUL and invalid Unicode, very long
 *   text, bad escapes, prototype keys) with every other value valid and real (existing ids), and
 *   every body gets each whole-body malformation (truncated and duplicate-key JSON, `__proto__`,
 *   wrong content types, invalid UTF-8); all with a key pair holding every scope, and the valid
 *   request once per credential (every scope, bearer, no scope, anonymous);
 * - the random part: fast-check (fixed seed) mixes valid and hostile values, credentials and body
 *   malformations across all operations.
 *
 * Every answer must be < 500, carry `x-request-id`, and, when an error, be exactly the one body
 * `{ errorCode, errorMessage, requestId, details? }` (requestId = the header, errorCode matching
 * the status). An operation that does not admit anonymous callers must never answer 2xx to one, nor
 * to a credential holding none of its scopes.
 *
 * `npm test` sweeps the core hostile values (about 4,600 requests) and sends 200 random requests per
 * engine: about 20 s per engine on an idle machine. The long run, with FUZZ_RUNS set, sweeps the
 * full catalogue (about 11,000 requests) and sends FUZZ_RUNS random requests (and FUZZ_RUNS/10 raw
 * socket ones, socket.fuzz.test.ts):
 *   FUZZ_RUNS=20000 npx vitest run test/fuzz
 * FUZZ_SEED=<n> changes the seed (a failure prints the seed and path to replay it).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/harness.js";
import { CREDENTIALS, type Credential, type Fixture, fuzzFixture } from "./fixture.js";
import { type Answer, Findings, problemsOf, shorten } from "./oracle.js";
import {
  admitsAnonymous,
  BODY_MALFORMATIONS,
  HOSTILE_JSON,
  HOSTILE_NUMBER_TEXT,
  HOSTILE_RAW_URL,
  HOSTILE_TEXT,
  hostileJsonFor,
  type JsonSchema,
  jsonWithRaw,
  leavesOf,
  type Operation,
  type Parameter,
  pick,
  schemaAt,
  type UrlValue,
  urlOf,
  urlText,
  valid,
} from "./requests.js";

/** The long run: FUZZ_RUNS set; it also sweeps the full catalogue of hostile values. */
const LONG_RUN = process.env.FUZZ_RUNS !== undefined;
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20240612);

interface FuzzRequest {
  op: Operation;
  credential: Credential;
  path: Record<string, UrlValue>;
  query: [string, UrlValue][];
  body?: { contentType?: string; payload: string | Buffer } | undefined;
  requestId?: string | undefined;
  /** What was made hostile, for the report. */
  what: string;
}

const describeRequest = (r: FuzzRequest): string =>
  `${r.op.method} ${shorten(urlOf(r.op, r.path, r.query), 120)} [${r.credential}]${
    r.body ? ` ${r.body.contentType ?? "(no content-type)"} ${shorten(r.body.payload.toString(), 100)}` : ""
  }`;

async function send(fx: Fixture, r: FuzzRequest): Promise<Answer> {
  const headers: Record<string, string> = { ...fx.headers[r.credential] };
  if (r.requestId !== undefined) headers["x-request-id"] = r.requestId;
  if (r.body?.contentType) headers["content-type"] = r.body.contentType;
  const res = await fx.h.app.inject({
    method: r.op.method as "GET",
    url: urlOf(r.op, r.path, r.query),
    headers,
    ...(r.body ? { payload: r.body.payload } : {}),
  });
  return { statusCode: res.statusCode, headers: res.headers, body: res.body };
}

/** The scopes an operation accepts, or "any" when any authenticated caller will do. */
function acceptedScopes(op: Operation): Set<string> | "any" {
  const alternatives = op.security.filter((s) => Object.keys(s).length > 0);
  if (alternatives.some((s) => Object.values(s).every((scopes) => scopes.length === 0))) return "any";
  return new Set(alternatives.flatMap((s) => Object.values(s).flat()));
}

/** Problems with the answer to `r`, the one-body rules plus the access rule. */
function judge(r: FuzzRequest, answer: Answer): string[] {
  const problems = problemsOf(answer, r.op.errorKeys);
  if (answer.statusCode < 300 && !admitsAnonymous(r.op)) {
    if (r.credential === "anonymous") problems.push("answered an anonymous caller");
    const scopes = acceptedScopes(r.op);
    if (r.credential === "no-scope" && scopes !== "any" && ![...scopes].some((s) => s.endsWith("user-info:read"))) {
      problems.push("answered a caller holding none of its scopes");
    }
  }
  return problems;
}

const sample = <T>(arb: fc.Arbitrary<T>, seed: number): T => fc.sample(arb, { seed, numRuns: 1 })[0]!;

const isNumeric = (s: JsonSchema) => [s.type ?? []].flat().some((t) => t === "integer" || t === "number");

/** Hostile URL values for one parameter: of its own kind first, a few of the other kind too. */
function hostileUrlValues(p: Parameter): UrlValue[] {
  const numeric = isNumeric(p.schema);
  const numbers = numeric ? pick(HOSTILE_NUMBER_TEXT, LONG_RUN) : ["Infinity", "2147483648"];
  const texts = numeric ? ["abc", "\u0000"] : pick(HOSTILE_TEXT, LONG_RUN);
  const raws = p.in === "path" ? pick(HOSTILE_RAW_URL, LONG_RUN) : ["%zz", "%00", "%ED%A0%80"];
  return [
    ...numbers.map((encoded) => ({ encoded })),
    ...texts.map((encoded) => ({ encoded })),
    ...raws.map((raw) => ({ raw })),
  ];
}

/** The valid request of an operation: real ids where known, every query value with a default. */
function baseline(fx: Fixture, op: Operation, seed: number): FuzzRequest {
  const path: Record<string, UrlValue> = {};
  const query: [string, UrlValue][] = [];
  for (const p of op.params) {
    const known = fx.known[p.name];
    const value = known?.length ? known[0] : sample(valid(p.schema, p.name, {}), seed);
    if (p.in === "path") path[p.name] = urlText(value);
    else if (p.required || known?.length) query.push([p.name, urlText(value)]);
  }
  const body = op.body
    ? { contentType: "application/json", payload: JSON.stringify(sample(valid(op.body, "", fx.known, 0, true), seed)) }
    : undefined;
  return { op, credential: "all-scopes", path, query, body, what: "valid" };
}

/** Every single-point malformation of one operation's valid request. */
function* sweep(fx: Fixture, op: Operation, seed: number): Generator<FuzzRequest> {
  const base = baseline(fx, op, seed);
  for (const credential of CREDENTIALS) yield { ...base, credential, what: `credential ${credential}` };
  for (const p of op.params) {
    for (const v of hostileUrlValues(p)) {
      const what = `${p.in} ${p.name}`;
      if (p.in === "path") yield { ...base, path: { ...base.path, [p.name]: v }, what };
      else yield { ...base, query: [...base.query.filter(([k]) => k !== p.name), [p.name, v]], what };
    }
    if (p.in === "query")
      yield {
        ...base,
        query: [...base.query, [p.name, { encoded: "1" }], [p.name, { encoded: "2" }]],
        what: `query ${p.name} twice`,
      };
  }
  for (const requestId of ["a".repeat(5000), "not a uuid", "' or 1=1 --", ""]) {
    yield { ...base, requestId, what: "header x-request-id" };
  }
  if (!base.body) {
    if (op.method !== "GET") {
      for (const make of BODY_MALFORMATIONS.slice(0, 8))
        yield { ...base, body: make('{"a":1}'), what: "unexpected body" };
    }
    return;
  }
  const value = JSON.parse(base.body.payload as string);
  for (const leaf of leavesOf(op.body!)) {
    for (const raw of hostileJsonFor(schemaAt(op.body!, leaf), LONG_RUN)) {
      yield {
        ...base,
        body: { contentType: "application/json", payload: jsonWithRaw(value, leaf, raw) },
        what: `body ${leaf.join(".")}`,
      };
    }
  }
  for (const [i, make] of BODY_MALFORMATIONS.entries()) {
    yield { ...base, body: make(base.body.payload as string), what: `body malformation #${i}` };
  }
}

/** A random request: valid and hostile values mixed, any credential, sometimes a broken body. */
function randomRequest(fx: Fixture, op: Operation): fc.Arbitrary<FuzzRequest> {
  const hostileUrl: fc.Arbitrary<UrlValue> = fc.oneof(
    fc.constantFrom(...pick(HOSTILE_NUMBER_TEXT, true), ...pick(HOSTILE_TEXT, true)).map((encoded) => ({ encoded })),
    fc.constantFrom(...pick(HOSTILE_RAW_URL, true)).map((raw) => ({ raw })),
    fc.string({ unit: "binary", maxLength: 300 }).map((encoded) => ({ encoded })),
    fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map((n) => ({ encoded: String(n) })),
    fc.double().map((n) => ({ encoded: String(n) })),
  );
  const paramArb = (p: Parameter) =>
    fc.oneof(
      { weight: 3, arbitrary: valid(p.schema, p.name, fx.known).map(urlText) },
      { weight: 1, arbitrary: hostileUrl },
    );
  const pathArb = fc.record(
    Object.fromEntries(op.params.filter((p) => p.in === "path").map((p) => [p.name, paramArb(p)])),
  ) as fc.Arbitrary<Record<string, UrlValue>>;
  const queryArb = fc
    .tuple(
      ...op.params
        .filter((p) => p.in === "query")
        .map((p) =>
          p.required
            ? paramArb(p).map((v) => [p.name, v] as [string, UrlValue])
            : fc.option(
                paramArb(p).map((v) => [p.name, v] as [string, UrlValue]),
                { nil: undefined },
              ),
        ),
    )
    .map((entries) => entries.filter((e): e is [string, UrlValue] => e !== undefined));
  const leaves = op.body ? leavesOf(op.body) : [];
  const hostileJson = fc.oneof(
    fc.constantFrom(...pick(HOSTILE_JSON, true)),
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
    fc.string({ unit: "binary", maxLength: 200 }).map((s) => JSON.stringify(s)),
  );
  const bodyArb: fc.Arbitrary<FuzzRequest["body"]> = op.body
    ? valid(op.body, "", fx.known).chain((value) => {
        const json = JSON.stringify(value);
        return fc.oneof(
          { weight: 2, arbitrary: fc.constant({ contentType: "application/json", payload: json }) },
          {
            weight: leaves.length ? 3 : 0,
            arbitrary: leaves.length
              ? fc.tuple(fc.constantFrom(...leaves), hostileJson).map(([leaf, raw]) => ({
                  contentType: "application/json",
                  payload: jsonWithRaw(value, leaf, raw),
                }))
              : fc.constant(undefined),
          },
          { weight: 1, arbitrary: fc.constantFrom(...BODY_MALFORMATIONS).map((make) => make(json)) },
        );
      })
    : fc.constant(undefined);
  return fc
    .record({
      credential: fc.constantFrom<Credential>(
        "all-scopes",
        "all-scopes",
        "all-scopes",
        "bearer",
        "no-scope",
        "anonymous",
      ),
      path: pathArb,
      query: queryArb,
      body: bodyArb,
    })
    .map((r) => ({ op, ...r, what: "random" }));
}

describe.each(engines())("fuzzing every operation of the OpenAPI document (%s)", (engine) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await fuzzFixture(engine);
  }, 60_000);
  afterAll(async () => fx?.close());

  it("reads every API operation from the document", () => {
    expect(fx.operations.length).toBeGreaterThan(70);
    expect(fx.operations.filter((op) => op.body).length).toBeGreaterThan(10);
  });

  it("answers every single-point malformation of every operation within the error model", async () => {
    const findings = new Findings();
    let sent = 0;
    for (const [i, op] of fx.operations.entries()) {
      for (const r of sweep(fx, op, SEED + i)) {
        const answer = await send(fx, r);
        sent += 1;
        const problems = judge(r, answer);
        if (problems.length) {
          findings.add(
            `${op.method} ${op.path} ${r.what}: ${problems.join("; ")}`,
            `${describeRequest(r)} → ${answer.statusCode}`,
          );
        }
      }
    }
    expect(sent).toBeGreaterThan(2000);
    expect(findings.list(), `${findings.size} distinct problems in ${sent} requests`).toEqual([]);
    const health = await fx.h.app.inject({ method: "GET", url: "/health" });
    expect(health.statusCode).toBe(200);
  }, 300_000);

  it(`answers ${RUNS} random requests within the error model (fast-check, seed ${SEED})`, async () => {
    const arb = fc.constantFrom(...fx.operations).chain((op) => randomRequest(fx, op));
    await fc.assert(
      fc.asyncProperty(arb, async (r) => {
        const answer = await send(fx, r);
        const problems = judge(r, answer);
        if (problems.length) {
          throw new Error(
            `${problems.join("; ")}: ${describeRequest(r)} → ${answer.statusCode} ${shorten(answer.body)}`,
          );
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: RUNS > 1000 },
    );
  }, 600_000);
});
