import { Context } from '@temporalio/activity';

/** Reports an activity's progress (details shown as the activity's last heartbeat). */
export type Heartbeat = (details?: unknown) => void;

export const NO_HEARTBEAT: Heartbeat = () => undefined;

/**
 * How long an export or DIAN event attempt runs before it heartbeats (withHeartbeatsAfter): most
 * end well within it, costing the engine no heartbeat, and it leaves most of their 20 s heartbeat
 * timeout for the first. The heartbeats are there so that a worker killed mid-attempt is noticed
 * within that timeout instead of the attempt's 2-minute start-to-close.
 */
export const LOST_WORKER_GRACE_MS = 3_000;

/** How often a long activity under withHeartbeatsAfter heartbeats on its own (the SDK sends at most one per 0.8 × the heartbeat timeout). */
export const KEEPALIVE_INTERVAL_MS = 5_000;

/**
 * The running activity's heartbeat. It does nothing outside an activity (tests of a function
 * itself) and in a local activity, which the server does not track: a lost worker shows as its
 * workflow task timing out, and the activity runs again with the task.
 */
export function activityHeartbeat(): Heartbeat {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return NO_HEARTBEAT;
  }
  if (context.info.isLocal) return NO_HEARTBEAT;
  return (details) => context.heartbeat(details);
}

/**
 * Runs `work` inside the current activity with a heartbeat that reaches the server only once the
 * activity has run `graceMs`. The SDK sends an activity's first heartbeat to the server at once
 * (later ones throttled), a RecordActivityTaskHeartbeat that writes the run's state and is a
 * billed Cloud action: an activity that nearly always ends within the grace costs the engine
 * none. From the end of the grace on, the activity heartbeats every `intervalMs` with the latest
 * details `work` reported (and whenever `work` reports), so a long one — a large parse that
 * reports only at its end, a wait for the CPU pool or the memory budget — is never silent for its
 * heartbeat timeout, while a lost worker still stops heartbeating. Keep `graceMs` well under the
 * activity's heartbeat timeout: the server counts it from the activity's start. Outside an
 * activity `work` runs with no heartbeat.
 */
export async function withHeartbeatsAfter<T>(graceMs: number, work: (heartbeat: Heartbeat) => Promise<T>, intervalMs = KEEPALIVE_INTERVAL_MS): Promise<T> {
  const send = activityHeartbeat();
  if (send === NO_HEARTBEAT) return work(NO_HEARTBEAT);
  let latest: unknown;
  let graceOver = false;
  let keepalive: NodeJS.Timeout | undefined;
  const grace = setTimeout(() => {
    graceOver = true;
    send(latest);
    keepalive = setInterval(() => send(latest), intervalMs);
  }, graceMs);
  try {
    return await work((details) => {
      latest = details;
      if (graceOver) send(details);
    });
  } finally {
    clearTimeout(grace);
    clearInterval(keepalive);
  }
}
