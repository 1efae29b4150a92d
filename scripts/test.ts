import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase, migrateToLatest } from '../db/connection';
import { createDatabaseIfMissing, startEmbeddedPostgres } from './embedded/postgres';
import { freePort } from './embedded/ports';
import { startTemporalDevServer } from './embedded/temporal-dev-server';
import { ensureTemporalCli } from './provision/temporal-cli';
import { ensureTestServer } from './provision/test-server';
import { ensureMinio } from './provision/minio';
import { ensureSchemathesis } from './provision/schemathesis';
import { ensureTemporalServer, ensureTemporalSqlTool } from './provision/temporal-server';
import type { TapSummary } from './tap-summary';
import { runTapProcess, SILENT_RUN_LIMIT_MS } from './tap-runner';
import { writeWorkflowBundle } from './bundle-workflows';
import { buildParts, COMPILED_PARTS_ENV } from './build-parts';

export const TEMPLATE_DATABASE = 'invoicing_template';

/**
 * `npm test`: provisions the offline tools, starts one throwaway Postgres cluster (each test
 * file clones a migrated template database) and one in-memory Temporal dev server, runs ava,
 * bundles the workflows once (every test worker loads that bundle instead of running webpack),
 * runs ava, prints the wall time and ends with the line `N passed, N failed, N skipped`. Extra
 * arguments go to ava (e.g. `npm test -- test/unit`).
 */
async function main(): Promise<number> {
  const started = performance.now();
  const say = (line: string) => console.log(`[test] ${line}`);
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-test-'));
  /** The services, stopped last-started first; the work directory (their data) goes after them. */
  const stops: (() => Promise<void>)[] = [];
  let summary: TapSummary = { passed: 0, failed: 1, skipped: 0 };
  // Interrupted (Ctrl-C, a closed terminal, CI's timeout): stop the tests' process group, then
  // the services below, and leave nothing running. Node's default would end this process at
  // once, orphaning Postgres, the dev server and every process the tests started.
  const interrupted = new AbortController();
  let interruption: NodeJS.Signals | null = null;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      interruption = signal;
      say(`${signal}: stopping the tests and the services`);
      interrupted.abort();
    });
  }
  try {
    const workflowBundle = path.join(workDir, 'workflow-bundle.js');
    const bundled = writeWorkflowBundle(workflowBundle);
    bundled.catch(() => undefined); // awaited below; not unhandled while the services start
    // The API and worker processes tests spawn run compiled, as under `npm start` (scripts/build-parts.ts).
    const compiledParts = path.join(workDir, 'parts');
    const compiled = buildParts(compiledParts);
    compiled.catch(() => undefined); // awaited below
    const [cliPath, testServerPath, minioPath, schemathesisPath] = await Promise.all([ensureTemporalCli(say), ensureTestServer(say), ensureMinio(say), ensureSchemathesis(say)]);
    // The scale test's Temporal server on Postgres (test/e2e/cluster-scale.test.ts); built after the CLI, not beside it, to spare a small machine two Go builds at once.
    await ensureTemporalServer(say);
    await ensureTemporalSqlTool(say);

    const postgres = await startEmbeddedPostgres({ dataDir: path.join(workDir, 'postgres'), port: await freePort(), throwaway: true });
    stops.unshift(() => postgres.stop());
    await createDatabaseIfMissing(postgres.url(), TEMPLATE_DATABASE);
    const template = connectDatabase(postgres.url(TEMPLATE_DATABASE), 1);
    await migrateToLatest(template);
    await template.destroy();

    const devServer = await startTemporalDevServer({
      cliPath,
      port: await freePort(),
      logFile: path.join(workDir, 'temporal-dev-server.log'),
    });
    stops.unshift(() => devServer.stop());
    say(`postgres on ${postgres.port}, Temporal dev server on ${devServer.address}`);
    say(`workflow bundle: ${Math.round((await bundled) / 1024)} KiB`);
    await compiled;

    if (interrupted.signal.aborted) throw new Error(`interrupted by ${interruption} before the tests started`);
    summary = await runAva(process.argv.slice(2), interrupted.signal, {
      ...process.env,
      TEST_PG_ADMIN_URL: postgres.url(),
      TEST_PG_TEMPLATE: TEMPLATE_DATABASE,
      TEST_TEMPORAL_ADDRESS: devServer.address,
      TEST_TIME_SKIPPING_SERVER: testServerPath,
      TEMPORAL_CLI_PATH: cliPath,
      TEST_MINIO_PATH: minioPath,
      TEST_WORKFLOW_BUNDLE: workflowBundle,
      [COMPILED_PARTS_ENV]: compiledParts,
      // Processes the tests spawn (api/main.ts, worker/main.ts) in parallel must not share metrics ports.
      METRICS_PORT: process.env.METRICS_PORT ?? '0',
      WORKER_METRICS_PORT: process.env.WORKER_METRICS_PORT ?? '0',
      WORKER_SDK_METRICS_PORT: process.env.WORKER_SDK_METRICS_PORT ?? '0',
      INTAKE_METRICS_PORT: process.env.INTAKE_METRICS_PORT ?? '0',
      TEST_SCHEMATHESIS_PATH: schemathesisPath,
    });
  } catch (error) {
    console.error(`[test] could not run the suite: ${error instanceof Error ? error.stack : String(error)}`);
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => say(`stopping a service failed: ${String(error)}`));
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
  }
  say(`wall time ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const skipped = summary.skipped ? `, ${summary.skipped} skipped` : '';
  console.log(`${summary.passed} passed, ${summary.failed} failed${skipped}`);
  if (interruption) return 128 + os.constants.signals[interruption];
  return summary.failed === 0 && summary.passed > 0 ? 0 : 1;
}

function runAva(args: string[], stop: AbortSignal, env: NodeJS.ProcessEnv): Promise<TapSummary> {
  const avaBin = path.resolve(__dirname, '../node_modules/ava/entrypoints/cli.mjs');
  return runTapProcess(process.execPath, [avaBin, '--tap', ...args], { env, silentLimitMs: SILENT_RUN_LIMIT_MS, stop });
}

void main().then((code) => process.exit(code));
