/**
 * One Ctrl-C can reach a process more than once: the terminal signals its whole process group,
 * and `npm start` and tsx each relay the signal to their child as well. A repeat of the same
 * signal this soon after the first is that same request, not an impatient second Ctrl-C.
 */
export const RELAYED_SIGNAL_WINDOW_MS = 1_000;

/**
 * Runs `stop` once on SIGINT, SIGTERM or SIGHUP, then exits. A second signal while stopping
 * exits at once, so an impatient Ctrl-C never hangs (a repeat within RELAYED_SIGNAL_WINDOW_MS is
 * the first one relayed, and is ignored).
 *
 * SIGHUP is a closed terminal (or its shell exiting). Node's default for it is to die on the
 * spot, which for `npm start` would leave its Temporal and Postgres running, in sessions of their
 * own, until the next start. After the stop the process dies of that SIGHUP, as Unix programs
 * do: an ordinary exit would make Node restore the closed terminal's settings, which fails and
 * aborts the process.
 *
 * A process started by `npm start`'s supervisor (scripts/start.ts) has an IPC channel to it;
 * when that channel closes, the supervisor is gone (even by kill -9), and this process stops
 * the same way, so no part of a crashed `npm start` keeps running on its own.
 */
export function onShutdownSignal(stop: () => Promise<void>, log: (line: string) => void): void {
  let stopping: { signal: NodeJS.Signals | 'supervisor gone'; at: number } | undefined;
  const handler = (signal: NodeJS.Signals | 'supervisor gone') => {
    if (stopping) {
      if (signal === 'supervisor gone') return;
      if (signal === stopping.signal && Date.now() - stopping.at < RELAYED_SIGNAL_WINDOW_MS) return;
      log(`${signal} again: exiting now`);
      process.exit(130);
    }
    stopping = { signal, at: Date.now() };
    log(`${signal}: shutting down…`);
    // Nothing may keep a child of a dead supervisor alive: a stop that hangs ends in exit(1).
    if (signal === 'supervisor gone') setTimeout(() => process.exit(1), 30_000).unref();
    stop()
      .then(() => {
        if (signal !== 'SIGHUP') process.exit(0);
        process.removeAllListeners('SIGHUP');
        process.kill(process.pid, 'SIGHUP');
      })
      .catch((error: unknown) => {
        log(`shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  process.on('SIGHUP', handler);
  if (process.connected) process.once('disconnect', () => handler('supervisor gone'));
}

/** The message a supervised process sends once it serves (scripts/start.ts waits for it). */
export type ReadyMessage = { type: 'ready'; url?: string; smtp?: { host: string; port: number; domain: string } };

/** Sent every ALIVE_INTERVAL_MS from the event loop once ready: the supervisor restarts a part that stops sending it. */
export type AliveMessage = { type: 'alive' };
export const ALIVE_INTERVAL_MS = 2_000;

/**
 * Tells the supervisor, if there is one, that this process is up, then that its event loop still
 * turns (a frozen or wedged process keeps its IPC channel open, so the supervisor would otherwise
 * wait on it for ever); a no-op when run alone.
 */
export function reportReady(message: Omit<ReadyMessage, 'type'> = {}): void {
  if (!process.send || !process.connected) return;
  process.send({ type: 'ready', ...message } satisfies ReadyMessage);
  setInterval(() => {
    if (process.connected) process.send!({ type: 'alive' } satisfies AliveMessage);
  }, ALIVE_INTERVAL_MS).unref();
}
