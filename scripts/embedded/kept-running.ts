import { RESTART_POLICY, restartDelayMs, type RestartPolicy } from '../restart-policy';

/** An embedded service as its start function returns it. */
export type WatchedService = {
  /** Its process, for the logs and the run record (none for Postgres, which pg_ctl daemonises). */
  pid?: number;
  /** Resolves when the service stops by itself (never, for a service we only reuse). */
  exited: Promise<void>;
  stop(): Promise<void>;
};

export type KeptService<S extends WatchedService> = {
  /** The service as it runs now (a restart replaces it). */
  current(): S;
  /** Stops it for good, waiting for a restart under way. */
  stop(): Promise<void>;
};

export type KeepingEvents<S> = {
  log(line: string): void;
  /** A new instance runs (the run record keeps Temporal's pid). */
  restarted?(service: S): void;
};

/**
 * Keeps one of `npm start`'s embedded services running, as the supervisor keeps its parts
 * (scripts/supervisor.ts): when the service stops without being asked to (killed, crashed, OOM),
 * it is started again with the parts' restart policy, with the same data and port, so the API and
 * the worker, which reconnect by themselves, carry on. A restart that fails is tried again with
 * the next, longer delay: the service ran before, so this is an outage to outlast, not a
 * configuration problem. `start` makes the first instance; its failure is the caller's.
 */
export async function keepRunning<S extends WatchedService>(
  name: string,
  start: () => Promise<S>,
  events: KeepingEvents<S>,
  policy: RestartPolicy = RESTART_POLICY,
): Promise<KeptService<S>> {
  let current = await start();
  let stopping = false;
  let attempt = 0;
  let healthyTimer: NodeJS.Timeout | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | null = null;

  const watch = (service: S) => {
    const startedAt = Date.now();
    // A service that has served for a while starts over at the shortest delay.
    healthyTimer = setTimeout(() => (attempt = 0), policy.healthyAfterMs);
    healthyTimer.unref();
    void service.exited.then(() => {
      if (stopping || service !== current) return;
      clearTimeout(healthyTimer);
      scheduleRestart(`${name}${service.pid ? ` (pid ${service.pid})` : ''} stopped unexpectedly after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`, service);
    });
  };

  const scheduleRestart = (why: string, dead: S) => {
    // A restart that failed while npm start was stopping: nothing more to start.
    if (stopping) return;
    const delay = restartDelayMs(policy, attempt);
    attempt += 1;
    events.log(`${why}; restarting it in ${delay / 1000} s (restart ${attempt})`);
    restartTimer = setTimeout(() => {
      restarting = (async () => {
        // What the dead instance still holds (a log file's handle); its process is gone.
        await dead.stop().catch(() => undefined);
        if (stopping) return;
        try {
          const next = await start();
          if (stopping) return void (await next.stop());
          current = next;
          events.log(`${name} is back${next.pid ? ` (pid ${next.pid})` : ''}`);
          events.restarted?.(next);
          watch(next);
        } catch (error) {
          // One log line: pg_ctl's answer spans several.
          const reason = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
          scheduleRestart(`${name} could not start again: ${reason}`, dead);
        }
      })().finally(() => (restarting = null));
    }, delay);
  };

  watch(current);
  return {
    current: () => current,
    async stop() {
      stopping = true;
      clearTimeout(healthyTimer);
      clearTimeout(restartTimer);
      await restarting;
      await current.stop();
    },
  };
}
