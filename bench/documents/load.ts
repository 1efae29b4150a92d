import autocannon from 'autocannon';

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
  /** From every response's own timing (autocannon's histogram keeps whole milliseconds). */
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
};

export function loadOnce(options: {
  url: string;
  connections: number;
  durationSeconds: number;
  headers: Record<string, string>;
}): Promise<LoadSample> {
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
  const latencies = Float64Array.from(samples.flatMap((sample) => sample.latenciesMs)).sort();
  const at = (quantile: number) =>
    latencies.length === 0 ? Number.NaN : latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(quantile * latencies.length) - 1))];
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
    latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: latencies.length ? latencies[latencies.length - 1] : Number.NaN },
    non2xx: samples.reduce((sum, sample) => sum + sample.non2xx, 0),
    errors: samples.reduce((sum, sample) => sum + sample.errors, 0),
    timeouts: samples.reduce((sum, sample) => sum + sample.timeouts, 0),
    statusCodes,
  };
}
