// The orders floor (bench/trading-orders.mjs --floor; decision 0208): a plain node:http server that
// does a demo market order's storage work as the app does it, and nothing else. Each POST's body is
// parsed, its caller found by x-user-key (a Map, looked up once in key_pairs), and its order
// written with the statements the app runs, in the same units (their SQL texts as
// bench/sql-timing.mjs records the app's):
// - the order's transaction: the guarded debit, the order, the position, the idempotency key with
//   its answer (the app's idempotently + openMarketOrder);
// - after its commit, outside any transaction: the trade-post choice (publishTrade's read), and
//   once per turn the copy engine's check for mirrors of the openers (not awaited, as in the app);
// - a second unit of the group commit: the RecentlyInvested move (recordInvestment), which the
//   app's answer waits for too.
// Units asked for in one turn share one commit, each in its own savepoint (the app's group commit,
// decision 0172), on a WAL file (FLOOR_SYNCHRONOUS, NORMAL by default), and a worker thread
// checkpoints as the app's does (decision 0184). Every order is answered after both of its commits,
// with the bytes of one of the app's answers (BASELINE_RESPONSE_FILE). Run as a child process:
// FLOOR_DB is a store migrated by the app, its callers made and each one's first order placed.
// Not a server anyone should use: no validation, no quotes, no events, no key check beyond the
// x-user-key; what it leaves out is what the app's own work per order costs beyond its storage.
// The SQL is copied from the app by hand: re-check it (sql-timing) when the order path changes.
// Storage experiments, applied to the store before serving: FLOOR_PAGE_SIZE=N rebuilds the file
// with N-byte pages (VACUUM); FLOOR_DROP_INDEXES=a,b drops those indexes; FLOOR_SKIP=choice,watchlist
// leaves out the trade-post choice's read and the RecentlyInvested move.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";

const file = process.env.FLOOR_DB;
const { status, contentType, body } = JSON.parse(readFileSync(process.env.BASELINE_RESPONSE_FILE, "utf8"));
const answer = Buffer.from(body, "base64");
const answerText = answer.toString("utf8");

const db = new Database(file);
if (process.env.FLOOR_DROP_INDEXES) {
  for (const name of process.env.FLOOR_DROP_INDEXES.split(",")) db.exec(`drop index "${name}"`);
}
if (process.env.FLOOR_PAGE_SIZE) {
  // A WAL file keeps its page size: back to a rollback journal, rebuilt, then WAL again.
  db.pragma("journal_mode = DELETE");
  db.pragma(`page_size = ${Number(process.env.FLOOR_PAGE_SIZE)}`);
  db.exec("vacuum");
}
db.pragma("journal_mode = WAL");
db.pragma(`synchronous = ${process.env.FLOOR_SYNCHRONOUS === "full" ? "FULL" : "NORMAL"}`);
db.pragma("foreign_keys = ON");
db.pragma("temp_store = MEMORY");
// The app's settings (src/infra/db/checkpointer.ts): a passive checkpoint every 250 ms from a
// worker, the connection's own only past 20,000 pages of log.
db.pragma("wal_autocheckpoint = 20000");
const sqlite = fileURLToPath(new URL("../node_modules/better-sqlite3/lib/index.js", import.meta.url));
const checkpointer = new Worker(
  `const D = require(${JSON.stringify(sqlite)});
   const db = new D(${JSON.stringify(file)});
   db.pragma("busy_timeout = 5000");
   setInterval(() => {
     try { db.pragma("wal_checkpoint(PASSIVE)"); } catch { /* busy: the next one */ }
   }, 250);`,
  { eval: true },
);
checkpointer.on("error", (error) => process.stderr.write(`floor checkpointer: ${error}\n`));
checkpointer.unref();

const S = {
  begin: db.prepare("begin immediate"),
  commit: db.prepare("commit"),
  savepoint: db.prepare("savepoint grouped"),
  release: db.prepare("release savepoint grouped"),
  rollbackTo: db.prepare("rollback to savepoint grouped"),
  caller: db.prepare(
    `select "key_pairs"."api_key_hash", "users"."id" as "user_id", "users"."gcid" from "key_pairs"
     inner join "users" on "users"."id" = "key_pairs"."user_id"
     where "key_pairs"."user_key_hash" = ? and "key_pairs"."revoked_at" is null`,
  ),
  idempotency: db.prepare(
    `insert into "idempotency_keys" ("user_id", "request_id", "operation", "body_hash", "response", "created_at")
     values (?, ?, ?, ?, ?, ?) on conflict ("user_id", "request_id") do nothing returning "request_id"`,
  ),
  choice: db.prepare(`select "enabled" from "trade_post_choices" where "user_id" = ?`),
  // The copy engine's check, one per turn for the users who opened (bound as a JSON list).
  mirrored: db.prepare(
    `select distinct "parent_user_id" from "copy_mirrors"
     where "parent_user_id" in (select value from json_each(?)) and "status" = 'active'`,
  ),
  debit: db.prepare(
    `update "demo_accounts" set "cash_cents" = cash_cents - ?, "updated_at" = ?
     where "user_id" = ? and "cash_cents" >= ? returning "user_id"`,
  ),
  order: db.prepare(
    `insert into "demo_orders" ("user_id", "cid", "order_type", "status_id", "instrument_id", "is_buy", "leverage",
       "amount_cents", "units", "requested_units", "rate", "stop_loss_rate", "take_profit_rate", "is_tsl_enabled",
       "is_no_stop_loss", "is_no_take_profit", "position_id", "units_to_deduct", "token", "reference_id",
       "open_date_time", "last_update")
     values (@user_id, @cid, 17, 1, @instrument_id, @is_buy, @leverage, @amount_cents, @units, null, @rate, 0, 0, 0,
       1, 1, null, null, @token, @reference_id, @now, @now) returning "order_id"`,
  ),
  position: db.prepare(
    `insert into "demo_positions" ("position_id", "user_id", "cid", "order_id", "instrument_id", "is_buy", "leverage",
       "amount_cents", "initial_amount_cents", "units", "initial_units", "open_rate", "open_date_time",
       "stop_loss_rate", "take_profit_rate", "is_tsl_enabled", "tsl_gap", "is_no_stop_loss", "is_no_take_profit",
       "status", "version", "last_update")
     values (@order_id, @user_id, @cid, @order_id, @instrument_id, @is_buy, @leverage, @amount_cents, @amount_cents,
       @units, @units, @rate, @now, 0, 0, 0, 0, 1, 1, 'open', 1, @now)`,
  ),
  moveToTop: db.prepare(
    `update "watchlist_items" set "item_rank" = (select min("i"."item_rank") - 1 as "r" from "watchlist_items" as "i"
       where "i"."watchlist_id" = "watchlist_items"."watchlist_id"), "item_added_reason" = ?, "item_added_date" = ?
     where "watchlist_id" = (select "id" from "watchlists" where "user_id" = ? and "builtin" = ?)
       and "item_type" = ? and "item_id" = ? returning "watchlist_id"`,
  ),
  putOnTop: db.prepare(
    `insert into "watchlist_items" ("watchlist_id", "item_type", "item_id", "item_rank", "item_added_reason", "item_added_date")
     select "w"."id", cast(? as text), cast(? as integer),
       (select coalesce(min("i"."item_rank"), 0) - 1 from "watchlist_items" as "i" where "i"."watchlist_id" = "w"."id"),
       cast(? as text), cast(? as text)
     from "watchlists" as "w" where "w"."user_id" = ? and "w"."builtin" = ?
     on conflict ("watchlist_id", "item_type", "item_id") do update set "item_rank" = "excluded"."item_rank",
       "item_added_reason" = "excluded"."item_added_reason", "item_added_date" = "excluded"."item_added_date"
     returning "watchlist_id"`,
  ),
};

const sha256 = (text) => createHash("sha256").update(text).digest("hex");
/** x-user-key → the caller, looked up once (the app keeps its key pairs in a TTL cache). */
const callers = new Map();
function callerOf(userKey) {
  let caller = callers.get(userKey);
  if (caller === undefined) {
    caller = S.caller.get(sha256(userKey));
    if (caller) callers.set(userKey, caller);
  }
  return caller;
}

const SKIP = new Set((process.env.FLOOR_SKIP ?? "").split(","));
const RATE = 100;

/** The order's transaction (the app's idempotently + openMarketOrder). */
function openOrder({ caller, requestId, input, bodyText }) {
  const now = new Date().toISOString();
  const amountCents = Math.round(input.Amount * 100);
  const units = input.Amount / RATE;
  if (!S.debit.get(amountCents, now, caller.user_id, amountCents)) throw new Error("not enough cash");
  const values = {
    user_id: caller.user_id,
    cid: 20_000_000 + caller.gcid,
    instrument_id: input.InstrumentID,
    is_buy: input.IsBuy ? 1 : 0,
    leverage: input.Leverage,
    amount_cents: amountCents,
    units,
    rate: RATE,
    token: requestId,
    reference_id: requestId,
    now,
  };
  const { order_id } = S.order.get(values);
  S.position.run({ ...values, order_id });
  if (!S.idempotency.get(caller.user_id, requestId, "by-amount", sha256(bodyText), answerText, now)) {
    throw new Error("replayed x-request-id");
  }
}

/** The RecentlyInvested move (the app's recordInvestment, a unit of its own). */
function moveToTop({ caller, input }) {
  const now = new Date().toISOString();
  const moved = S.moveToTop.get("Invested", now, caller.user_id, "RecentlyInvested", "Instrument", input.InstrumentID);
  if (!moved) S.putOnTop.get("Instrument", input.InstrumentID, "Invested", now, caller.user_id, "RecentlyInvested");
}

/** The group commit: units asked for in one turn, each in its savepoint, one commit; each settles after it. */
let queue = [];
function inGroup(work, order) {
  return new Promise((resolve, reject) => {
    if (queue.length === 0) setImmediate(commitQueued);
    queue.push({ work, order, resolve, reject });
  });
}
function commitQueued() {
  const batch = queue;
  queue = [];
  const errors = new Map();
  try {
    S.begin.run();
    for (const unit of batch) {
      S.savepoint.run();
      try {
        unit.work(unit.order);
      } catch (error) {
        S.rollbackTo.run();
        errors.set(unit, error);
      }
      S.release.run();
    }
    S.commit.run();
  } catch (error) {
    try {
      if (db.inTransaction) db.exec("rollback");
    } catch {
      // Nothing of the batch was committed either way.
    }
    for (const unit of batch) unit.reject(error);
    return;
  }
  for (const unit of batch) {
    if (errors.has(unit)) unit.reject(errors.get(unit));
    else unit.resolve();
  }
}

/** The copy engine's check: once per turn, for the users who opened (not awaited by the answers). */
let openers = [];
function checkMirrors(userId) {
  if (openers.length === 0) {
    setImmediate(() => {
      const users = [...new Set(openers)];
      openers = [];
      S.mirrored.all(JSON.stringify(users));
    });
  }
  openers.push(userId);
}

async function order(req, res, bodyText) {
  const caller = callerOf(String(req.headers["x-user-key"]));
  if (!caller) return void res.writeHead(401).end();
  const requestId = req.headers["x-request-id"];
  if (typeof requestId !== "string") return void res.writeHead(400).end("x-request-id is required");
  let input;
  try {
    input = JSON.parse(bodyText);
  } catch {
    return void res.writeHead(400).end();
  }
  const order = { caller, requestId, input, bodyText };
  try {
    await inGroup(openOrder, order);
  } catch (error) {
    if (process.env.FLOOR_DEBUG) process.stderr.write(`${error}\n`);
    return void res.writeHead(422).end(String(error));
  }
  if (!SKIP.has("choice")) S.choice.get(caller.user_id);
  checkMirrors(caller.user_id);
  if (!SKIP.has("watchlist")) await inGroup(moveToTop, order);
  res.writeHead(status, { "content-type": contentType, "content-length": answer.length }).end(answer);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    order(req, res, Buffer.concat(chunks).toString("utf8")).catch((error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
