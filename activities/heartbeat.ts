import { performance } from 'node:perf_hooks';
import { Context } from '@temporalio/activity';

/** Reports an activity's progress (details shown as the activity's last heartbeat). */
export type Heartbeat = (details?: unknown) => void;

export const NO_HEARTBEAT: Heartbeat = () => undefined;

/**
 * The running activity's heartbeat, sent only once the activity has run `graceMs`. The SDK
 * sends an activity's first heartbeat to the server at once (later ones throttled), a
 * RecordActivityTaskHeartbeat that writes the run's state and is a billed Cloud action: an
 * activity that nearly always ends within the grace costs the engine none, and one that runs
 * longer heartbeats as before. Keep
 * `graceMs` well under the activity's heartbeat timeout: the server counts that timeout from the
 * activity's start until the first heartbeat. Outside an activity (tests of the function
 * itself) it does nothing.
 */
export function heartbeatAfter(graceMs: number): Heartbeat {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return NO_HEARTBEAT;
  }
  const startedAt = performance.now();
  return (details) => {
    if (performance.now() - startedAt >= graceMs) context.heartbeat(details);
  };
}
