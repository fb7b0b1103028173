import { useState } from "preact/hooks";
import type { Api } from "../api.ts";
import type { Notification, Post } from "../model.ts";

const when = (iso: string) =>
  new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** The caller's for-you feed: posts, and polls one can vote in. */
export function Feed(props: { api: Api; posts: Post[] | null; reload: () => void }) {
  const { api, posts, reload } = props;
  const [error, setError] = useState<string | null>(null);
  if (!posts) return <p>Loading the feed…</p>;
  if (posts.length === 0) return <p>Nothing in your feed yet.</p>;

  const vote = async (post: Post, pollId: number, optionId: number, voted: boolean) => {
    setError(null);
    try {
      await api(voted ? "DELETE" : "POST", `/api/v1/posts/${post.id}/polls/${pollId}/options/${optionId}/votes`);
      reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ol class="feed">
        {posts.map((post) => {
          const poll = post.metadata?.poll;
          const total = poll?.options.reduce((n, o) => n + o.votesCount, 0) ?? 0;
          return (
            <li key={post.id}>
              <article aria-labelledby={`post-${post.id}`}>
                <header>
                  <strong id={`post-${post.id}`}>@{post.owner.username}</strong>{" "}
                  <time dateTime={post.created} class="muted">
                    {when(post.created)} UTC
                  </time>
                </header>
                <p>{post.message.text}</p>
                {poll && (
                  <fieldset class="poll">
                    <legend>{poll.title}</legend>
                    {poll.options.map((o) => (
                      <button
                        key={o.id}
                        type="button"
                        aria-pressed={o.isUserVoted}
                        onClick={() => void vote(post, poll.id, o.id, o.isUserVoted)}
                      >
                        {o.text}{" "}
                        <span class="muted">
                          ({o.votesCount} of {total})
                        </span>
                      </button>
                    ))}
                  </fieldset>
                )}
              </article>
            </li>
          );
        })}
      </ol>
    </>
  );
}

/** The caller's notifications, newest first; new ones arrive on the real-time channel. */
export function Notifications(props: { api: Api; items: Notification[] | null; reload: () => void }) {
  const { api, items, reload } = props;
  const [error, setError] = useState<string | null>(null);
  if (!items) return <p>Loading notifications…</p>;
  const unread = items.filter((n) => n.readStatus !== "Read").length;
  const markAll = async () => {
    setError(null);
    try {
      await api("PATCH", "/api/v1/notifications/messages");
      reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <>
      <p>
        {unread === 0 ? "All read." : `${unread} unread.`}{" "}
        {unread > 0 && (
          <button type="button" onClick={() => void markAll()}>
            Mark all as read
          </button>
        )}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ul class="notifications">
        {items.map((n) => (
          <li key={n.messageId} class={n.readStatus === "Read" ? "read" : "unread"}>
            <p>{n.message}</p>
            <time dateTime={n.publishDate} class="muted">
              {when(n.publishDate)} UTC · {n.category}
            </time>
          </li>
        ))}
      </ul>
    </>
  );
}
