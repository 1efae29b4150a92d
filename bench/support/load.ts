import autocannon from 'autocannon';
import { summarise as latencySummary, type LatencySummary } from './stats';

/** One closed-loop autocannon run, keeping every response's latency so runs can be merged. */
export type LoadSample = {
  latenciesMs: number[];
  requests: number;
  seconds: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
};

export type LoadSummary = {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  /** From every response's own timing, to the microsecond (autocannon's histogram keeps whole ms). */
  latencyMs: LatencySummary;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
};

/** A single run's summary as bench/api.ts reports it (its JSON says `durationSeconds` for `seconds`). */
export type LoadResult = Omit<LoadSummary, 'seconds'> & { durationSeconds: number };

export type LoadOptions = {
  url: string;
  connections: number;
  durationSeconds: number;
  headers: Record<string, string>;
};

/** One closed-loop load run: `connections` clients each sending the next request as soon as the last is answered. */
export function loadOnce(options: LoadOptions): Promise<LoadSample> {
  const latenciesMs: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: options.url, connections: options.connections, duration: options.durationSeconds, headers: options.headers, timeout: 10 },
      (error: unknown, result: autocannon.Result) => {
        if (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const statusCodes: Record<string, number> = {};
        for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
        resolve({
          latenciesMs,
          requests: result.requests.total,
          seconds: result.duration,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes,
        });
      },
    );
    instance.on('response', (_client, _statusCode, _bytes, responseTime) => latenciesMs.push(responseTime));
  });
}

/** Merges runs of the same request (e.g. the two halves of an A-B-B-A schedule) into one summary. */
export function summarise(samples: LoadSample[]): LoadSummary {
  const requests = samples.reduce((sum, sample) => sum + sample.requests, 0);
  const seconds = samples.reduce((sum, sample) => sum + sample.seconds, 0);
  const statusCodes: Record<string, number> = {};
  for (const sample of samples) {
    for (const [code, count] of Object.entries(sample.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  return {
    requests,
    seconds,
    requestsPerSecond: seconds > 0 ? requests / seconds : 0,
    latencyMs: latencySummary(samples.flatMap((sample) => sample.latenciesMs)),
    non2xx: samples.reduce((sum, sample) => sum + sample.non2xx, 0),
    errors: samples.reduce((sum, sample) => sum + sample.errors, 0),
    timeouts: samples.reduce((sum, sample) => sum + sample.timeouts, 0),
    statusCodes,
  };
}

/** loadOnce + summarise for a single run, in bench/api.ts's shape. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { requests, seconds, requestsPerSecond, latencyMs, non2xx, errors, timeouts, statusCodes } = summarise([await loadOnce(options)]);
  return { requests, durationSeconds: seconds, requestsPerSecond, latencyMs, non2xx, errors, timeouts, statusCodes };
}
