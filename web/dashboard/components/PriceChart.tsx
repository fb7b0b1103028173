import {
  type CandlestickData,
  CandlestickSeries,
  ColorType,
  createChart,
  type IChartApi,
  type ISeriesApi,
  type UTCTimestamp,
} from "lightweight-charts";
import { useEffect, useRef } from "preact/hooks";
import type { Api } from "../api.ts";
import { formatPrice, type Instrument, type Quote } from "../model.ts";

interface CandlesBody {
  candles: { candles: { fromDate: string; open: number; high: number; low: number; close: number }[] }[];
}

const MINUTE = 60;

/**
 * One instrument: its last hour of one-minute candles (REST), the current candle following every
 * pushed rate, and the bid and ask in text for screen readers and keyboard users.
 */
export function PriceChart(props: { api: Api; instrument: Instrument; quote: Quote | undefined }) {
  const { api, instrument, quote } = props;
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  const series = useRef<ISeriesApi<"Candlestick"> | null>(null);
  const last = useRef<CandlestickData<UTCTimestamp> | null>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const dark = matchMedia("(prefers-color-scheme: dark)").matches;
    const c = createChart(element, {
      autoSize: true,
      // the browser's own locale may be one Intl refuses (headless Chromium: "en-US@posix")
      localization: { locale: "en-US" },
      layout: {
        background: { type: ColorType.Solid, color: "transparent" },
        textColor: dark ? "#ddd" : "#333",
        // the logo's <style> element is refused by the page's CSP: the page credits TradingView in its footer
        attributionLogo: false,
      },
      grid: { vertLines: { color: "#8883" }, horzLines: { color: "#8883" } },
      timeScale: { timeVisible: true, secondsVisible: false },
    });
    const s = c.addSeries(CandlestickSeries, {
      upColor: "#1d8a4a",
      downColor: "#c62828",
      borderVisible: false,
      wickUpColor: "#1d8a4a",
      wickDownColor: "#c62828",
    });
    chart.current = c;
    series.current = s;
    let cancelled = false;
    api<CandlesBody>(
      "GET",
      `/api/v1/market-data/instruments/${instrument.instrumentId}/history/candles/asc/OneMinute/60`,
    )
      .then((body) => {
        if (cancelled) return;
        const bars = (body.candles[0]?.candles ?? []).map((k) => ({
          time: (Date.parse(k.fromDate) / 1000) as UTCTimestamp,
          open: k.open,
          high: k.high,
          low: k.low,
          close: k.close,
        }));
        // a live rate may have drawn the current minute already: keep whichever is newer
        const current = last.current;
        const merged = current ? [...bars.filter((b) => b.time < current.time), current] : bars;
        s.setData(merged);
        last.current = merged.at(-1) ?? null;
      })
      .catch(() => {});
    return () => {
      cancelled = true;
      c.remove();
      chart.current = null;
      series.current = null;
    };
  }, [api, instrument.instrumentId]);

  useEffect(() => {
    if (!quote || !series.current) return;
    const time = (Math.floor(quote.at / 1000 / MINUTE) * MINUTE) as UTCTimestamp;
    const price = quote.last;
    const previous = last.current;
    let bar: CandlestickData<UTCTimestamp>;
    if (previous && previous.time === time) {
      bar = { ...previous, high: Math.max(previous.high, price), low: Math.min(previous.low, price), close: price };
    } else if (!previous || previous.time < time) {
      const open = previous?.close ?? price;
      bar = { time, open, high: Math.max(open, price), low: Math.min(open, price), close: price };
    } else {
      return;
    }
    series.current.update(bar);
    last.current = bar;
  }, [quote]);

  const headingId = `chart-${instrument.instrumentId}`;
  return (
    <section class="chart" aria-labelledby={headingId}>
      <header>
        <h3 id={headingId}>
          {instrument.symbol} <span class="muted">{instrument.name}</span>
        </h3>
        <p class="quote" data-testid={`quote-${instrument.instrumentId}`}>
          {quote ? (
            <>
              <span>
                Bid <strong data-field="bid">{formatPrice(quote.bid)}</strong>
              </span>{" "}
              <span>
                Ask <strong data-field="ask">{formatPrice(quote.ask)}</strong>
              </span>
            </>
          ) : (
            "waiting for a price…"
          )}
        </p>
      </header>
      <div
        class="chart-canvas"
        ref={container}
        role="img"
        aria-label={`${instrument.name}: one-minute candles of the last hour, updated live`}
      />
    </section>
  );
}
