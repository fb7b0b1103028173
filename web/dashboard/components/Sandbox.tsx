import { useEffect, useState } from "preact/hooks";
import { formatMoney, formatPrice, type Instrument, type Quote } from "../model.ts";

/*
 * The operator's sandbox controls (decision 0155), against the sandbox control API (`/sandbox/v1`,
 * decisions 0148–0152). Only an operator key pair reaches it (a bearer token never carries the
 * operator's scope), so the operator pastes that pair here: it stays in this component's memory,
 * sent only to /sandbox/v1 on this origin, and is gone on reload or sign-out.
 */

interface OperatorKeys {
  apiKey: string;
  userKey: string;
}

interface MarketState {
  step: number;
  allPaused: boolean;
  paused: number[];
  tickMs: number;
}

async function sandboxCall<T>(keys: OperatorKeys, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {
    "x-api-key": keys.apiKey,
    "x-user-key": keys.userKey,
    "x-request-id": crypto.randomUUID(),
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`/sandbox/v1${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!response.ok) throw new Error(String(parsed.errorMessage ?? `The sandbox answered ${response.status}`));
  return parsed as T;
}

export function SandboxPanel(props: {
  username: string | null;
  watched: Instrument[];
  quotes: Map<number, Quote>;
  announce: (text: string) => void;
}) {
  const [keys, setKeys] = useState<OperatorKeys | null>(null);
  if (!keys) return <OperatorSignIn onKeys={setKeys} />;
  return <Controls {...props} keys={keys} forget={() => setKeys(null)} />;
}

function OperatorSignIn({ onKeys }: { onKeys: (keys: OperatorKeys) => void }) {
  const [apiKey, setApiKey] = useState("");
  const [userKey, setUserKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const keys = { apiKey: apiKey.trim(), userKey: userKey.trim() };
    try {
      await sandboxCall(keys, "GET", "/market");
      onKeys(keys);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <form class="operator-keys" onSubmit={(e) => void submit(e)}>
      <p>
        The sandbox controls need the operator's key pair (printed by <code>npm start</code>, or made with{" "}
        <code>social-trading-api sandbox operator-key</code>). It is kept in this page's memory only.
      </p>
      <div class="fields">
        <div class="field">
          <label for="operator-api-key">Operator x-api-key</label>
          <input
            id="operator-api-key"
            type="password"
            autocomplete="off"
            required
            value={apiKey}
            onInput={(e) => setApiKey(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="operator-user-key">Operator x-user-key</label>
          <input
            id="operator-user-key"
            type="password"
            autocomplete="off"
            required
            value={userKey}
            onInput={(e) => setUserKey(e.currentTarget.value)}
          />
        </div>
        <button type="submit">Use the operator keys</button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

function Controls(props: {
  keys: OperatorKeys;
  forget: () => void;
  username: string | null;
  watched: Instrument[];
  quotes: Map<number, Quote>;
  announce: (text: string) => void;
}) {
  const { keys, forget, username, watched, quotes, announce } = props;
  const [market, setMarket] = useState<MarketState | null>(null);
  const [instrumentId, setInstrumentId] = useState<number | null>(null);
  const [bid, setBid] = useState("");
  const [ask, setAsk] = useState("");
  const [balance, setBalance] = useState("100000");
  const [error, setError] = useState<string | null>(null);
  const chosen = instrumentId ?? watched[0]?.instrumentId ?? null;
  const quote = chosen === null ? undefined : quotes.get(chosen);

  const run = async (what: () => Promise<string>) => {
    setError(null);
    try {
      announce(await what());
      setMarket(await sandboxCall<MarketState>(keys, "GET", "/market"));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  useEffect(() => {
    sandboxCall<MarketState>(keys, "GET", "/market")
      .then(setMarket)
      .catch(() => {});
  }, [keys]);

  const setPrice = (event: Event) => {
    event.preventDefault();
    if (chosen === null) return;
    void run(async () => {
      const r = await sandboxCall<{ quote: { bid: number; ask: number } }>(keys, "PUT", `/prices/${chosen}`, {
        bid: Number(bid),
        ask: Number(ask),
      });
      const symbol = watched.find((i) => i.instrumentId === chosen)?.symbol ?? String(chosen);
      return `Sandbox: ${symbol} set to bid ${formatPrice(r.quote.bid)}, ask ${formatPrice(r.quote.ask)}.`;
    });
  };
  const me = username ? encodeURIComponent(username) : null;

  return (
    <>
      <p class="muted">
        {market
          ? `Tick ${market.step}; ${market.allPaused ? "all prices paused" : market.paused.length > 0 ? `${market.paused.length} instrument(s) paused` : "prices moving"}.`
          : "Reading the market state…"}{" "}
        <button type="button" onClick={forget}>
          Forget the operator keys
        </button>
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <form class="sandbox-price" onSubmit={setPrice} aria-labelledby="sandbox-price-heading">
        <h3 id="sandbox-price-heading">Set a price</h3>
        <div class="fields">
          <div class="field">
            <label for="sandbox-instrument">Instrument to price</label>
            <select
              id="sandbox-instrument"
              value={chosen === null ? "" : String(chosen)}
              onChange={(e) => setInstrumentId(Number(e.currentTarget.value))}
            >
              {watched.map((i) => (
                <option key={i.instrumentId} value={String(i.instrumentId)}>
                  {i.symbol} — {i.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="sandbox-bid">Bid</label>
            <input
              id="sandbox-bid"
              type="number"
              step="any"
              min="0"
              required
              value={bid}
              placeholder={quote ? String(quote.bid) : ""}
              onInput={(e) => setBid(e.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="sandbox-ask">Ask</label>
            <input
              id="sandbox-ask"
              type="number"
              step="any"
              min="0"
              required
              value={ask}
              placeholder={quote ? String(quote.ask) : ""}
              onInput={(e) => setAsk(e.currentTarget.value)}
            />
          </div>
          <button type="submit" class="primary">
            Set price
          </button>
        </div>
      </form>
      <fieldset class="sandbox-actions">
        <legend>Market</legend>
        <button
          type="button"
          onClick={() =>
            void run(async () => {
              await sandboxCall(keys, "POST", "/market/pause", {});
              return "Sandbox: prices paused.";
            })
          }
        >
          Pause all prices
        </button>
        <button
          type="button"
          onClick={() =>
            void run(async () => {
              await sandboxCall(keys, "POST", "/market/resume", {});
              return "Sandbox: prices resumed.";
            })
          }
        >
          Resume all prices
        </button>
        <button
          type="button"
          onClick={() =>
            void run(async () => {
              const r = await sandboxCall<{ step: number }>(keys, "POST", "/market/step", { ticks: 1 });
              return `Sandbox: one tick (now ${r.step}).`;
            })
          }
        >
          Step one tick
        </button>
      </fieldset>
      {me && (
        <fieldset class="sandbox-actions">
          <legend>Your demo account</legend>
          <label for="sandbox-balance">Demo cash (USD)</label>
          <input
            id="sandbox-balance"
            type="number"
            min="0"
            step="0.01"
            value={balance}
            onInput={(e) => setBalance(e.currentTarget.value)}
          />
          <button
            type="button"
            onClick={() =>
              void run(async () => {
                const r = await sandboxCall<{ balance: number }>(keys, "PUT", `/accounts/${me}/balance`, {
                  balance: Number(balance),
                });
                return `Sandbox: your demo cash is now ${formatMoney(r.balance)}.`;
              })
            }
          >
            Set my cash
          </button>
          <button
            type="button"
            onClick={() =>
              void run(async () => {
                const r = await sandboxCall<{ closedPositionIds: number[] }>(
                  keys,
                  "POST",
                  `/accounts/${me}/close-positions`,
                  {},
                );
                return `Sandbox: closed ${r.closedPositionIds.length} position(s).`;
              })
            }
          >
            Close all my positions
          </button>
        </fieldset>
      )}
    </>
  );
}
