/**
 * The restart policy of `npm start` (docs/operations.md, "Processes"), for its parts
 * (scripts/supervisor.ts) and its embedded Postgres and Temporal (scripts/embedded/kept-running.ts):
 * what exits is started again after 1 s, 2 s, 4 s … up to 30 s; once it has served for 60 s the
 * next restart waits 1 s again. Before its first "ready" a part gets 3 attempts, then `npm start`
 * gives up (a part that cannot start at all is a configuration problem, not a crash).
 *
 * A ready part whose event loop has not reported for `unresponsiveAfterMs` (frozen by SIGSTOP, a
 * loop that never yields) is killed with SIGKILL and restarted like a crashed one
 * (`PART_UNRESPONSIVE_SECONDS` sets it for npm start's parts: config/index.ts, scripts/stack.ts).
 */
export const RESTART_POLICY = { initialDelayMs: 1_000, maxDelayMs: 30_000, healthyAfterMs: 60_000, startAttempts: 3, stopGraceMs: 25_000, unresponsiveAfterMs: 60_000 };

export type RestartPolicy = typeof RESTART_POLICY;

/** The wait before restart number `attempt + 1` (attempt 0 is the first restart). */
export function restartDelayMs(policy: RestartPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
}
