import { render } from "preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type Api, createApi } from "./api.ts";
import { beginSignIn, completeSignIn, refresh, signOut, storedTokens } from "./auth.ts";
import { Portfolio } from "./components/Portfolio.tsx";
import { PriceChart } from "./components/PriceChart.tsx";
import { SandboxPanel } from "./components/Sandbox.tsx";
import { Feed, Notifications } from "./components/Social.tsx";
import { type DashboardConfig, readConfig } from "./config.ts";
import {
  type FeedBody,
  formatMoney,
  formatPrice,
  type Instrument,
  mergeRate,
  type Notification,
  type PnlBody,
  type Post,
  type Quote,
  type WatchlistsBody,
  watchedInstruments,
} from "./model.ts";
import { type ChannelState, type PushMessage, Realtime } from "./realtime.ts";
import "./style.css";

/** How many watched instruments get a chart (each costs one candles request). */
const MAX_CHARTS = 8;
const CLOSE_REASONS: Record<number, string> = { 1: "stop-loss", 2: "take-profit", 3: "trailing stop" };

interface InstrumentsBody {
  instrumentDisplayDatas: { instrumentID: number; instrumentDisplayName: string; symbolFull: string }[];
}

interface Me {
  username: string;
  firstName: string;
  lastName: string;
}

function App({ config }: { config: DashboardConfig }) {
  const [phase, setPhase] = useState<"starting" | "signed-out" | "signed-in">("starting");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    completeSignIn(config)
      .then((tokens) => setPhase(tokens || storedTokens() ? "signed-in" : "signed-out"))
      .catch((e: unknown) => {
        setError(e instanceof Error ? e.message : String(e));
        setPhase("signed-out");
      });
  }, [config]);
  const signedOut = useCallback(() => setPhase("signed-out"), []);
  if (phase === "starting") return <p class="centered">Loading…</p>;
  if (phase === "signed-out") {
    return (
      <main class="sign-in">
        <h1>Social Trading dashboard</h1>
        <p>Prices, your demo portfolio, your feed and notifications, live.</p>
        {error && (
          <p role="alert" class="error">
            Sign-in failed: {error}
          </p>
        )}
        <button type="button" class="primary" onClick={() => void beginSignIn(config)}>
          Sign in
        </button>
        <p class="muted">You sign in on this server's own sign-in page; the dashboard never sees your password.</p>
      </main>
    );
  }
  return <Dashboard config={config} onSignedOut={signedOut} />;
}

function Dashboard({ config, onSignedOut }: { config: DashboardConfig; onSignedOut: () => void }) {
  const api: Api = useMemo(() => createApi(config, onSignedOut), [config, onSignedOut]);
  const [me, setMe] = useState<Me | null>(null);
  const [watched, setWatched] = useState<Instrument[]>([]);
  const [portfolio, setPortfolio] = useState<PnlBody["clientPortfolio"] | null>(null);
  const [posts, setPosts] = useState<Post[] | null>(null);
  const [notifications, setNotifications] = useState<Notification[] | null>(null);
  const [quotes, setQuotes] = useState<Map<number, Quote>>(new Map());
  const [channel, setChannel] = useState<{ state: ChannelState; detail?: string }>({ state: "connecting" });
  // what happened, newest first: order results, stop-loss closes, sandbox actions (a polite live log)
  const [activity, setActivity] = useState<{ id: number; text: string }[]>([]);
  const announce = useCallback(
    (text: string) => setActivity((previous) => [{ id: (previous[0]?.id ?? 0) + 1, text }, ...previous].slice(0, 5)),
    [],
  );
  const [problem, setProblem] = useState<string | null>(null);
  const realtime = useRef<Realtime | null>(null);

  const report = useCallback(
    (what: string) => (e: unknown) => {
      setProblem(`Could not load ${what}: ${e instanceof Error ? e.message : String(e)}`);
    },
    [],
  );
  const loadPortfolio = useCallback(() => {
    api<PnlBody>("GET", "/api/v1/trading/info/demo/pnl")
      .then((b) => setPortfolio(b.clientPortfolio))
      .catch(report("the portfolio"));
  }, [api, report]);
  const loadFeed = useCallback(() => {
    api<FeedBody>("GET", "/api/v1/feeds/for-you?take=20&reactionsPageSize=1")
      .then((b) => setPosts(b.discussions.map((d) => d.post)))
      .catch(report("the feed"));
  }, [api, report]);
  const loadNotifications = useCallback(() => {
    api<{ messages: Notification[] }>("GET", "/api/v1/notifications/messages")
      .then((b) => setNotifications(b.messages))
      .catch(report("notifications"));
  }, [api, report]);

  useEffect(() => {
    api<Me>("GET", "/api/v1/me").then(setMe).catch(report("your profile"));
    api<WatchlistsBody>("GET", "/api/v1/watchlists")
      .then((b) => setWatched(watchedInstruments(b)))
      .catch(report("your watchlists"));
    loadPortfolio();
    loadFeed();
    loadNotifications();
  }, [api, loadPortfolio, loadFeed, loadNotifications, report]);

  const onPrivate = useCallback(
    (m: PushMessage) => {
      const c = m.content;
      if (m.type === "Trading.OrderForCloseMultiple.Update") {
        const reason = CLOSE_REASONS[Number(c.CloseReason)];
        if (reason) {
          announce(
            `Position ${String(c.PositionID)} closed by ${reason} at ${formatPrice(Number(c.EndRate))}: ${formatMoney(Number(c.NetProfit))}.`,
          );
        }
      }
      loadPortfolio();
    },
    [loadPortfolio, announce],
  );

  useEffect(() => {
    const channel = new Realtime(
      async () => {
        const tokens = storedTokens();
        if (tokens && tokens.expiresAt - Date.now() > 10_000) return tokens.accessToken;
        return (await refresh(config))?.accessToken ?? null;
      },
      {
        onRate: ({ instrumentId, fields }) =>
          setQuotes((previous) => {
            const quote = mergeRate(previous.get(instrumentId), fields);
            return quote ? new Map(previous).set(instrumentId, quote) : previous;
          }),
        onPrivate,
        onNotification: (m) =>
          setNotifications((previous) => [m.content as unknown as Notification, ...(previous ?? [])]),
        onState: (state, detail) => setChannel(detail === undefined ? { state } : { state, detail }),
      },
    );
    realtime.current = channel;
    channel.want(["private", "notifications"]);
    channel.start();
    return () => channel.stop();
  }, [config, onPrivate]);

  // every watched instrument and every instrument held gets its rates pushed
  const held = portfolio?.positions.map((p) => p.instrumentID) ?? [];
  const topicKey = [...new Set([...watched.map((i) => i.instrumentId), ...held])].sort().join(",");
  useEffect(() => {
    if (topicKey) realtime.current?.want(topicKey.split(",").map((id) => `instrument:${id}`));
  }, [topicKey]);

  // without the channel (a proxy that refuses WebSockets, a reconnect), poll the rates over REST
  useEffect(() => {
    if (channel.state !== "reconnecting" || !topicKey) return;
    const poll = () =>
      api<{ rates: { instrumentID: number; bid: number; ask: number; lastExecution: number; date: string }[] }>(
        "GET",
        `/api/v1/market-data/instruments/rates?instrumentIds=${topicKey}`,
      )
        .then((b) =>
          setQuotes((previous) => {
            const next = new Map(previous);
            for (const r of b.rates) {
              next.set(r.instrumentID, { bid: r.bid, ask: r.ask, last: r.lastExecution, at: Date.parse(r.date) });
            }
            return next;
          }),
        )
        .catch(() => {});
    poll();
    const timer = setInterval(poll, 3000);
    return () => clearInterval(timer);
  }, [api, channel.state, topicKey]);

  // names of instruments held but not watched (a position opened by another app)
  const [others, setOthers] = useState<Instrument[]>([]);
  const unnamed = held.filter(
    (id) => !watched.some((i) => i.instrumentId === id) && !others.some((i) => i.instrumentId === id),
  );
  const unnamedKey = [...new Set(unnamed)].sort().join(",");
  useEffect(() => {
    if (!unnamedKey) return;
    api<InstrumentsBody>("GET", `/api/v1/market-data/instruments?instrumentIds=${unnamedKey}`)
      .then((b) =>
        setOthers((previous) => [
          ...previous,
          ...b.instrumentDisplayDatas.map((d) => ({
            instrumentId: d.instrumentID,
            symbol: d.symbolFull,
            name: d.instrumentDisplayName,
          })),
        ]),
      )
      .catch(() => {});
  }, [api, unnamedKey]);
  const instruments = useMemo(
    () => new Map([...others, ...watched].map((i) => [i.instrumentId, i])),
    [watched, others],
  );

  const doSignOut = async () => {
    realtime.current?.stop();
    await signOut(config);
    onSignedOut();
  };

  return (
    <>
      <header class="top">
        <h1>Social Trading dashboard</h1>
        <p class="channel" data-state={channel.state}>
          {channel.state === "live"
            ? "Live"
            : channel.state === "connecting"
              ? "Connecting…"
              : `Reconnecting (polling meanwhile)${channel.detail ? `: ${channel.detail}` : ""}`}
        </p>
        {me && (
          <p class="who">
            Signed in as <strong data-testid="username">{me.username}</strong>
          </p>
        )}
        <button type="button" onClick={() => void doSignOut()}>
          Sign out
        </button>
      </header>
      {activity.length > 0 && (
        <ul role="log" aria-label="Activity" class="activity" data-testid="activity">
          {activity.map((a) => (
            <li key={a.id}>{a.text}</li>
          ))}
        </ul>
      )}
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      <main class="grid">
        <section aria-labelledby="markets-heading" class="markets">
          <h2 id="markets-heading">Watched instruments</h2>
          {watched.length === 0 && <p>Your watchlists hold no instrument yet.</p>}
          <div class="charts">
            {watched.slice(0, MAX_CHARTS).map((i) => (
              <PriceChart key={i.instrumentId} api={api} instrument={i} quote={quotes.get(i.instrumentId)} />
            ))}
          </div>
        </section>
        <section aria-labelledby="portfolio-heading" class="portfolio">
          <h2 id="portfolio-heading">Demo portfolio</h2>
          <Portfolio
            api={api}
            portfolio={portfolio}
            quotes={quotes}
            instruments={instruments}
            watched={watched}
            reload={loadPortfolio}
            announce={announce}
          />
        </section>
        {config.sandbox && (
          <section aria-labelledby="sandbox-heading" class="sandbox">
            <h2 id="sandbox-heading">Sandbox controls (operator)</h2>
            <SandboxPanel username={me?.username ?? null} watched={watched} quotes={quotes} announce={announce} />
          </section>
        )}
        <section aria-labelledby="feed-heading" class="feed-section">
          <h2 id="feed-heading">Your feed</h2>
          <Feed api={api} posts={posts} reload={loadFeed} />
        </section>
        <section aria-labelledby="notifications-heading" class="notifications-section">
          <h2 id="notifications-heading">Notifications</h2>
          <Notifications api={api} items={notifications} reload={loadNotifications} />
        </section>
      </main>
      <footer class="credits">
        Charts by{" "}
        <a href="https://www.tradingview.com/" rel="noreferrer">
          TradingView
        </a>{" "}
        Lightweight Charts™. API documentation: <a href="/docs">/docs</a>.
      </footer>
    </>
  );
}

const root = document.getElementById("app");
const config = readConfig();
// the sign-in comes back to the registered address: open the page there (its tab storage is per origin)
if (new URL(config.redirectUri).origin !== location.origin) location.replace(config.redirectUri);
else if (root) render(<App config={config} />, root);
