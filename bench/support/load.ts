import autocannon from 'autocannon';

export type LoadResult = {
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  /** From every response's own timing, to the microsecond (autocannon's histogram keeps whole ms). */
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
};

/** One closed-loop load run: `connections` clients each sending the next request as soon as the last is answered. */
export function runLoad(options: {
  url: string;
  connections: number;
  durationSeconds: number;
  headers: Record<string, string>;
}): Promise<LoadResult> {
  const latencies = new LatencyRecorder();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        headers: options.headers,
        timeout: 10,
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const statusCodes: Record<string, number> = {};
        for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
        resolve({
          requests: result.requests.total,
          durationSeconds: result.duration,
          requestsPerSecond: result.duration > 0 ? result.requests.total / result.duration : 0,
          latencyMs: latencies.summary(),
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes,
        });
      },
    );
    instance.on('response', (_client, _statusCode, _bytes, responseTime) => latencies.record(responseTime));
  });
}

class LatencyRecorder {
  private values = new Float64Array(1 << 16);
  private count = 0;

  record(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count] = ms;
    this.count += 1;
  }

  summary(): LoadResult['latencyMs'] {
    if (this.count === 0) return { p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN };
    const sorted = this.values.slice(0, this.count).sort();
    const at = (quantile: number) => sorted[Math.min(this.count - 1, Math.ceil(quantile * this.count) - 1)];
    return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[this.count - 1] };
  }
}
