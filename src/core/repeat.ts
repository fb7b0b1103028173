/**
 * Runs `pass` every `everyMs` until the returned stop is called, never two at once (a pass still
 * running when the next is due is skipped), only while `when()` holds (e.g. this instance leads the
 * market); `now` runs one at once, `alsoAfterMs` one more shortly after start. `pass` reports its own
 * failures: it must not reject. The timers never keep the process alive; stop waits for a running pass.
 */
export function repeatEvery(
  everyMs: number,
  pass: () => Promise<void>,
  options: { now?: boolean; alsoAfterMs?: number; when?: () => boolean } = {},
): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy || (options.when && !options.when())) return;
    busy = true;
    running = pass().finally(() => {
      busy = false;
    });
  };
  if (options.now) tick();
  const first = options.alsoAfterMs === undefined ? undefined : setTimeout(tick, options.alsoAfterMs);
  first?.unref();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
