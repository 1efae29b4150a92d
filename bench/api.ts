import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../scripts/embedded/ports';
import { startChildProcess, type ChildProcessHandle } from './support/child-process';
import { CleanupStack } from './support/cleanup';
import { durationSecondsFromEnv, parseShortAndJson, runMain, warnIfBusy } from './support/cli';
import { metricsPortsEnv, startBenchEnvironment } from './support/environment';
import { runLoad, type LoadResult } from './support/load';
import { emitJsonReport, fixed, machineInfo, markdownTable } from './support/report';

/**
 * `npm run bench:api [-- --short] [-- --json PATH]`: throughput and latency of the real API
 * (child process, Koa + knex) against a bare node:http + pg baseline doing the same work
 * (bench/baseline-server.ts), for GET /v1/companies and GET /v1/me at 1, 16 and 64
 * connections. Starts its own Postgres and Temporal dev server; needs no network.
 *
 * BENCH_DURATION_SECONDS (default 10) sets the length of each measured cell; --short or
 * BENCH_SHORT=1 makes it 2 s (CI). See docs/performance.md.
 */

const ROUTES = ['/v1/companies', '/v1/me'] as const;
const CONNECTIONS = [1, 16, 64] as const;
const SERVERS = ['api', 'baseline'] as const;
const COMPANIES = 10;
const DATABASE_POOL_MAX = 10; // the API's default; the baseline's pg.Pool gets the same

type Route = (typeof ROUTES)[number];
type ServerName = (typeof SERVERS)[number];

type Options = { durationSeconds: number; warmupSeconds: number; short: boolean; jsonPath: string | null };

type Row = {
  route: Route;
  connections: number;
  api: LoadResult;
  baseline: LoadResult;
  /** api req/s ÷ baseline req/s */
  throughputRatio: number;
};

const log = (line: string) => console.error(`[bench:api] ${line}`);

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const { short, jsonPath } = parseShortAndJson(argv, env);
  let durationSeconds = durationSecondsFromEnv(env, 10);
  if (short) durationSeconds = 2;
  return { durationSeconds, warmupSeconds: short ? 1 : 3, short, jsonPath };
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const cleanup = new CleanupStack(log);
  cleanup.exitOnSignals();
  const problems: string[] = [];
  const loadAverageAtStart = warnIfBusy(log, os.cpus().length / 2);
  try {
    const environment = await startBenchEnvironment({ cleanup, log, companies: COMPANIES });

    const [apiPort, baselinePort] = [await freePort(), await freePort()];
    const commonEnv = {
      NODE_ENV: 'production',
      DATABASE_URL: environment.databaseUrl,
      DATABASE_POOL_MAX: String(DATABASE_POOL_MAX),
      HOST: '127.0.0.1',
    };
    const started = await Promise.allSettled([
      startChildProcess({
        name: 'api',
        part: 'api',
        port: apiPort,
        readiness: 'http-200',
        readyPath: '/healthz',
        probeTimeoutMs: 3000,
        env: {
          ...commonEnv,
          PORT: String(apiPort),
          ...(await metricsPortsEnv()), // beside a running npm start, not on its metrics port
          TEMPORAL_ADDRESS: environment.temporalAddress,
          LOG_LEVEL: 'warn',
          RATE_LIMIT_PER_SECOND: '0', // no rate limiting: we want the server's ceiling
          SMTP_PORT: '0',
          SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'), // required when NODE_ENV=production
          DATA_DIR: path.join(environment.workDir, 'api-data'),
        },
      }),
      startChildProcess({
        name: 'baseline',
        script: 'bench/baseline-server.ts',
        port: baselinePort,
        readiness: 'http-200',
        readyPath: '/healthz',
        probeTimeoutMs: 3000,
        env: { ...commonEnv, PORT: String(baselinePort) },
      }),
    ]);
    for (const outcome of started) {
      if (outcome.status === 'fulfilled') cleanup.push(`stop the ${outcome.value.name}`, () => outcome.value.stop());
    }
    const failedStart = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failedStart) throw failedStart.reason;
    const [api, baseline] = started.map((outcome) => (outcome as PromiseFulfilledResult<ChildProcessHandle>).value);
    const servers: Record<ServerName, ChildProcessHandle> = { api, baseline };
    log(`API (pid ${api.pid}) on ${api.url}, baseline (pid ${baseline.pid}) on ${baseline.url}`);

    const headers = { Authorization: environment.authorization, Accept: 'application/json' };
    await checkSameAnswers(servers, headers, environment.companyCount);

    log(`warming up (${options.warmupSeconds} s per server and route)…`);
    for (const route of ROUTES) {
      for (const name of SERVERS) {
        await runLoad({ url: servers[name].url + route, connections: 16, durationSeconds: options.warmupSeconds, headers });
      }
    }

    const rows: Row[] = [];
    const cells = ROUTES.length * CONNECTIONS.length * SERVERS.length;
    log(`measuring ${cells} cells of ${options.durationSeconds} s (about ${Math.ceil((cells * options.durationSeconds) / 60)} min)…`);
    for (const route of ROUTES) {
      for (const connections of CONNECTIONS) {
        const results = {} as Record<ServerName, LoadResult>;
        for (const name of SERVERS) {
          const result = await runLoad({ url: servers[name].url + route, connections, durationSeconds: options.durationSeconds, headers });
          results[name] = result;
          log(
            `${route} × ${connections} → ${name}: ${fixed(result.requestsPerSecond, 0)} req/s, ` +
              `p50 ${fixed(result.latencyMs.p50, 2)} ms, p99 ${fixed(result.latencyMs.p99, 2)} ms`,
          );
          const failed = result.non2xx + result.errors + result.timeouts;
          if (failed > 0 || result.requests === 0) {
            problems.push(
              `${name} ${route} × ${connections}: ${result.requests} responses, ${result.non2xx} non-2xx ` +
                `(${JSON.stringify(result.statusCodes)}), ${result.errors} errors, ${result.timeouts} timeouts`,
            );
          }
        }
        rows.push({
          route,
          connections,
          api: results.api,
          baseline: results.baseline,
          throughputRatio: results.api.requestsPerSecond / results.baseline.requestsPerSecond,
        });
      }
    }

    const report = {
      date: new Date().toISOString(),
      machine: {
        ...machineInfo(loadAverageAtStart),
        note: 'load generator (autocannon), servers and Postgres on the same machine',
      },
      durationSeconds: options.durationSeconds,
      short: options.short,
      warmupSeconds: options.warmupSeconds,
      companies: environment.companyCount,
      databasePoolMax: DATABASE_POOL_MAX,
      rows,
      problems,
    };
    console.log(`\nAPI vs bare node:http + pg baseline — ${report.date}, ${options.durationSeconds} s per cell, ${report.machine.cpus} cores, Node ${report.machine.node}\n`);
    console.log(renderTable(rows));
    await emitJsonReport(report, options.jsonPath, log);
    if (problems.length > 0) {
      const tails = SERVERS.map((name) => `--- ${name} output (last lines) ---\n${servers[name].outputTail() || '(none)'}`);
      log(`FAILED: not every request succeeded:\n  ${problems.join('\n  ')}\n${tails.join('\n')}`);
    }
  } catch (error) {
    problems.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
    log(`FAILED: ${problems[problems.length - 1]}`);
  } finally {
    log('shutting down…');
    await cleanup.runAll();
  }
  return problems.length === 0 ? 0 : 1;
}

/** Both servers must give the same answer, or the comparison means nothing. */
async function checkSameAnswers(
  servers: Record<ServerName, ChildProcessHandle>,
  headers: Record<string, string>,
  companyCount: number,
): Promise<void> {
  for (const route of ROUTES) {
    const bodies: Partial<Record<ServerName, unknown>> = {};
    for (const name of SERVERS) {
      const response = await fetch(servers[name].url + route, { headers });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${name} GET ${route} answered ${response.status}: ${text.slice(0, 500)}`);
      bodies[name] = JSON.parse(text) as unknown;
    }
    if (!isDeepStrictEqual(bodies.api, bodies.baseline)) {
      throw new Error(
        `the baseline's answer to GET ${route} differs from the API's:\n` +
          `api:      ${JSON.stringify(bodies.api)}\nbaseline: ${JSON.stringify(bodies.baseline)}`,
      );
    }
    const companies = route === '/v1/companies' ? bodies.api : (bodies.api as { companies?: unknown }).companies;
    if (!Array.isArray(companies) || companies.length !== companyCount) {
      throw new Error(`GET ${route} did not list the ${companyCount} seeded companies`);
    }
  }
  log('API and baseline give identical answers on both routes');
}

function renderTable(rows: Row[]): string {
  const header = [
    'route',
    'connections',
    'api req/s',
    'api p50 ms',
    'api p99 ms',
    'baseline req/s',
    'baseline p50 ms',
    'baseline p99 ms',
    'api/baseline',
  ];
  const body = rows.map((row) => [
    row.route,
    String(row.connections),
    fixed(row.api.requestsPerSecond, 0),
    fixed(row.api.latencyMs.p50, 2),
    fixed(row.api.latencyMs.p99, 2),
    fixed(row.baseline.requestsPerSecond, 0),
    fixed(row.baseline.latencyMs.p50, 2),
    fixed(row.baseline.latencyMs.p99, 2),
    fixed(row.throughputRatio, 2),
  ]);
  return markdownTable(header, body, header.map((_, column) => column > 0));
}

runMain(main);
