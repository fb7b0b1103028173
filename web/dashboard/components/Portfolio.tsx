import { Fragment } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type Api, ApiError } from "../api.ts";
import {
  formatMoney,
  formatPrice,
  formatUnits,
  type Instrument,
  type PnlBody,
  type Position,
  positionPnl,
  type Quote,
} from "../model.ts";

const OPEN_BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const closeUrl = (positionId: number) => `/api/v1/trading/execution/demo/market-close-orders/positions/${positionId}`;
const exitsUrl = (positionId: number) => `/api/v2/trading/execution/demo/positions/${positionId}`;
const COLUMNS = 10;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface PortfolioProps {
  api: Api;
  portfolio: PnlBody["clientPortfolio"] | null;
  quotes: Map<number, Quote>;
  instruments: Map<number, Instrument>;
  watched: Instrument[];
  /** Re-reads the portfolio after an order of ours (the private channel also tells). */
  reload: () => void;
  announce: (text: string) => void;
}

/** The demo account: live P/L from the pushed rates, the open positions, and the order form. */
export function Portfolio(props: PortfolioProps) {
  const { portfolio, quotes, instruments } = props;
  if (!portfolio) return <p>Loading the portfolio…</p>;
  let unrealized = 0;
  for (const p of portfolio.positions) unrealized += positionPnl(p, quotes.get(p.instrumentID)) ?? 0;
  unrealized = Math.round(unrealized * 100) / 100;
  const equity = portfolio.credit + portfolio.invested + unrealized;
  return (
    <>
      <dl class="summary">
        <div>
          <dt>Cash</dt>
          <dd data-testid="cash">{formatMoney(portfolio.credit)}</dd>
        </div>
        <div>
          <dt>Invested</dt>
          <dd>{formatMoney(portfolio.invested)}</dd>
        </div>
        <div>
          <dt>Unrealised P/L</dt>
          <dd data-testid="unrealized" class={unrealized < 0 ? "loss" : "gain"}>
            {formatMoney(unrealized)}
          </dd>
        </div>
        <div>
          <dt>Equity</dt>
          <dd data-testid="equity">{formatMoney(equity)}</dd>
        </div>
      </dl>
      <OpenForm {...props} />
      <PositionsTable {...props} positions={portfolio.positions} instruments={instruments} />
    </>
  );
}

function PositionsTable(props: PortfolioProps & { positions: Position[] }) {
  const { positions, quotes, instruments, api, reload, announce } = props;
  const [busy, setBusy] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // the position whose exits are being edited (one at a time)
  const [editing, setEditing] = useState<number | null>(null);
  const editButtons = useRef(new Map<number, HTMLButtonElement>());
  const stopEditing = (positionId: number) => {
    setEditing(null);
    editButtons.current.get(positionId)?.focus();
  };
  if (positions.length === 0) return <p data-testid="no-positions">No open positions.</p>;

  const close = async (p: Position) => {
    setBusy(p.positionID);
    setError(null);
    try {
      const result = await api<{ orderForClose: { netProfit: number; closeRate: number } }>(
        "POST",
        closeUrl(p.positionID),
        { InstrumentID: p.instrumentID },
      );
      announce(
        `Position ${p.positionID} closed at ${formatPrice(result.orderForClose.closeRate)}: ${formatMoney(result.orderForClose.netProfit)}.`,
      );
      reload();
    } catch (e) {
      setError(`Position ${p.positionID} was not closed: ${messageOf(e)}`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table class="positions">
        <caption>Open positions</caption>
        <thead>
          <tr>
            <th scope="col">Position</th>
            <th scope="col">Instrument</th>
            <th scope="col">Side</th>
            <th scope="col">Units</th>
            <th scope="col">Open rate</th>
            <th scope="col">Current</th>
            <th scope="col">Stop-loss</th>
            <th scope="col">Take-profit</th>
            <th scope="col">P/L</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {positions.map((p) => {
            const quote = quotes.get(p.instrumentID);
            const pnl = positionPnl(p, quote);
            const symbol = instruments.get(p.instrumentID)?.symbol ?? String(p.instrumentID);
            const editorId = `exits-${p.positionID}`;
            return (
              <Fragment key={p.positionID}>
                <tr data-position={p.positionID}>
                  <th scope="row">{p.positionID}</th>
                  <td>{symbol}</td>
                  <td>{p.isBuy ? "Buy" : "Sell"}</td>
                  <td>{formatUnits(p.units)}</td>
                  <td>{formatPrice(p.openRate)}</td>
                  <td>{quote ? formatPrice(p.isBuy ? quote.bid : quote.ask) : "—"}</td>
                  <td data-field="stop-loss">
                    {p.stopLossRate && !p.isNoStopLoss ? formatPrice(p.stopLossRate) : "—"}
                    {p.isTslEnabled && !p.isNoStopLoss ? " (trailing)" : ""}
                  </td>
                  <td data-field="take-profit">
                    {p.takeProfitRate && !p.isNoTakeProfit ? formatPrice(p.takeProfitRate) : "—"}
                  </td>
                  <td class={pnl !== null && pnl < 0 ? "loss" : "gain"} data-field="pnl">
                    {pnl === null ? "—" : formatMoney(pnl)}
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      ref={(b) => {
                        if (b) editButtons.current.set(p.positionID, b);
                        else editButtons.current.delete(p.positionID);
                      }}
                      onClick={() => (editing === p.positionID ? stopEditing(p.positionID) : setEditing(p.positionID))}
                      aria-expanded={editing === p.positionID}
                      aria-controls={editing === p.positionID ? editorId : undefined}
                      aria-label={`Edit exits of position ${p.positionID} (${symbol})`}
                    >
                      Edit exits
                    </button>{" "}
                    <button
                      type="button"
                      onClick={() => void close(p)}
                      disabled={busy === p.positionID}
                      aria-label={`Close position ${p.positionID} (${symbol})`}
                    >
                      Close
                    </button>
                  </td>
                </tr>
                {editing === p.positionID && (
                  <tr class="exits-row" data-editing={p.positionID}>
                    <td colSpan={COLUMNS}>
                      <ExitsForm
                        id={editorId}
                        api={api}
                        position={p}
                        symbol={symbol}
                        quote={quote}
                        onDone={(text) => {
                          announce(text);
                          stopEditing(p.positionID);
                          reload();
                        }}
                        onCancel={() => stopEditing(p.positionID)}
                      />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

function OpenForm(props: PortfolioProps) {
  const { api, watched, reload, announce, quotes } = props;
  const [instrumentId, setInstrumentId] = useState<number | null>(null);
  const [side, setSide] = useState<"buy" | "sell">("buy");
  const [amount, setAmount] = useState("1000");
  const [leverage, setLeverage] = useState("1");
  const [stopLoss, setStopLoss] = useState("");
  const [takeProfit, setTakeProfit] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const chosen = instrumentId ?? watched[0]?.instrumentId ?? null;
  if (chosen === null) return <p>Add an instrument to a watchlist to trade it here.</p>;
  const quote = quotes.get(chosen);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = {
      InstrumentID: chosen,
      IsBuy: side === "buy",
      Leverage: Number(leverage),
      Amount: Number(amount),
    };
    if (stopLoss.trim() !== "") body.StopLossRate = Number(stopLoss);
    if (takeProfit.trim() !== "") body.TakeProfitRate = Number(takeProfit);
    try {
      const result = await api<{ orderForOpen: { positionID: number; rate: number; units: number } }>(
        "POST",
        OPEN_BY_AMOUNT,
        body,
      );
      const o = result.orderForOpen;
      announce(`Position ${o.positionID} opened: ${formatUnits(o.units)} units at ${formatPrice(o.rate)}.`);
      setStopLoss("");
      setTakeProfit("");
      reload();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="open-form" onSubmit={(e) => void submit(e)} aria-labelledby="open-heading">
      <h3 id="open-heading">Open a position</h3>
      <div class="fields">
        <div class="field">
          <label for="open-instrument">Instrument</label>
          <select
            id="open-instrument"
            value={String(chosen)}
            onChange={(e) => setInstrumentId(Number(e.currentTarget.value))}
          >
            {watched.map((i) => (
              <option key={i.instrumentId} value={String(i.instrumentId)}>
                {i.symbol} — {i.name}
              </option>
            ))}
          </select>
        </div>
        <fieldset>
          <legend>Side</legend>
          <label class="inline">
            <input type="radio" name="side" value="buy" checked={side === "buy"} onChange={() => setSide("buy")} />
            Buy
          </label>
          <label class="inline">
            <input type="radio" name="side" value="sell" checked={side === "sell"} onChange={() => setSide("sell")} />
            Sell
          </label>
        </fieldset>
        <div class="field">
          <label for="open-amount">Amount (USD)</label>
          <input
            id="open-amount"
            type="number"
            min="0.01"
            step="0.01"
            required
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="open-leverage">Leverage</label>
          <select id="open-leverage" value={leverage} onChange={(e) => setLeverage(e.currentTarget.value)}>
            {["1", "2", "5", "10", "20"].map((l) => (
              <option key={l} value={l}>
                x{l}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="open-stop-loss">Stop-loss rate (optional)</label>
          <input
            id="open-stop-loss"
            type="number"
            step="any"
            min="0"
            value={stopLoss}
            onInput={(e) => setStopLoss(e.currentTarget.value)}
            aria-describedby="open-quote"
          />
        </div>
        <div class="field">
          <label for="open-take-profit">Take-profit rate (optional)</label>
          <input
            id="open-take-profit"
            type="number"
            step="any"
            min="0"
            value={takeProfit}
            onInput={(e) => setTakeProfit(e.currentTarget.value)}
            aria-describedby="open-quote"
          />
        </div>
      </div>
      <p id="open-quote" class="muted">
        {quote ? `Now: bid ${formatPrice(quote.bid)}, ask ${formatPrice(quote.ask)}.` : "Waiting for a price."}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" class="primary" disabled={busy}>
        Open position
      </button>
    </form>
  );
}

/** The rate as the form shows it: empty for none. */
const rateField = (rate: number, none: boolean) => (rate && !none ? String(rate) : "");

interface ExitsFormProps {
  id: string;
  api: Api;
  position: Position;
  symbol: string;
  quote: Quote | undefined;
  onDone: (text: string) => void;
  onCancel: () => void;
}

/**
 * Changes a position's stop-loss, take-profit and trailing flag (PATCH …/demo/positions/{id}):
 * only the fields the user changed are sent (an emptied rate is null: removed), so a trailing
 * stop the server moved meanwhile is kept unless retyped. The server's 422 problems are listed
 * under the form, one per field.
 */
function ExitsForm({ id, api, position: p, symbol, quote, onDone, onCancel }: ExitsFormProps) {
  const initial = {
    stopLoss: rateField(p.stopLossRate, p.isNoStopLoss),
    takeProfit: rateField(p.takeProfitRate, p.isNoTakeProfit),
    trailing: p.isTslEnabled,
  };
  const [stopLoss, setStopLoss] = useState(initial.stopLoss);
  const [takeProfit, setTakeProfit] = useState(initial.takeProfit);
  const [trailing, setTrailing] = useState(initial.trailing);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{
    message: string;
    details: readonly { field: string; message: string }[];
  } | null>(null);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const prefix = `${id}-`;

  const submit = async (event: Event) => {
    event.preventDefault();
    const body: Record<string, unknown> = {};
    const rate = (text: string) => (text.trim() === "" ? null : Number(text));
    if (stopLoss.trim() !== initial.stopLoss) body.stopLossRate = rate(stopLoss);
    if (takeProfit.trim() !== initial.takeProfit) body.takeProfitRate = rate(takeProfit);
    if (trailing !== initial.trailing) body.stopLossType = trailing ? "trailing" : "fixed";
    if (Object.keys(body).length === 0) {
      onCancel();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await api<{ positionId: number; stopLossRate: number; takeProfitRate: number; isTslEnabled: boolean }>(
        "PATCH",
        exitsUrl(p.positionID),
        body,
      );
      const sl = r.stopLossRate ? `${formatPrice(r.stopLossRate)}${r.isTslEnabled ? " (trailing)" : ""}` : "none";
      const tp = r.takeProfitRate ? formatPrice(r.takeProfitRate) : "none";
      onDone(`Position ${r.positionId} exits changed: stop-loss ${sl}, take-profit ${tp}.`);
    } catch (e) {
      setError({ message: messageOf(e), details: e instanceof ApiError ? e.details : [] });
      setBusy(false);
    }
  };

  return (
    <form
      id={id}
      class="exits-form"
      aria-label={`Exits of position ${p.positionID} (${symbol})`}
      onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onCancel();
        }
      }}
    >
      <div class="fields">
        <div class="field">
          <label for={`${prefix}stop-loss`}>Stop-loss rate</label>
          <input
            id={`${prefix}stop-loss`}
            ref={first}
            type="number"
            step="any"
            min="0"
            value={stopLoss}
            onInput={(e) => setStopLoss(e.currentTarget.value)}
            aria-describedby={`${prefix}hint`}
            aria-invalid={error?.details.some((d) => d.field.endsWith("stopLossRate")) ? "true" : undefined}
          />
        </div>
        <div class="field">
          <label for={`${prefix}take-profit`}>Take-profit rate</label>
          <input
            id={`${prefix}take-profit`}
            type="number"
            step="any"
            min="0"
            value={takeProfit}
            onInput={(e) => setTakeProfit(e.currentTarget.value)}
            aria-describedby={`${prefix}hint`}
            aria-invalid={error?.details.some((d) => d.field.endsWith("takeProfitRate")) ? "true" : undefined}
          />
        </div>
        <label class="inline">
          <input type="checkbox" checked={trailing} onChange={(e) => setTrailing(e.currentTarget.checked)} />
          Trailing stop-loss
        </label>
      </div>
      <p id={`${prefix}hint`} class="muted">
        Empty removes the rate.{" "}
        {quote ? `Now: bid ${formatPrice(quote.bid)}, ask ${formatPrice(quote.ask)}.` : "Waiting for a price."}
      </p>
      {error && (
        <div role="alert" class="error" data-testid={`${prefix}error`}>
          <p>{error.message}</p>
          {error.details.length > 1 && (
            <ul>
              {error.details.map((d) => (
                <li key={d.field}>{d.message}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          Save exits
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
