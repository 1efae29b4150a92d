import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { freePort } from '../../scripts/embedded/ports';
import { SQLITE_PRAGMAS, startTemporalDevServer } from '../../scripts/embedded/temporal-dev-server';
import { workerTuning } from '../../worker/tuning';
import type { CleanupStack } from '../support/cleanup';
import { processCpuMs } from '../support/process-cpu';
import { mean, runBounded, summarise } from '../support/stats';
import { createNoopWorker } from './noop-worker';
import { noopWorkflow } from './workflows';

/**
 * `npm run bench:engine -- --storage`: what the dev server's storage costs a workflow. `npm start`
 * keeps the engine's state in a SQLite file (so workflows survive a restart) with the pragmas of
 * scripts/embedded/temporal-dev-server.ts; `npm test` and the benchmarks run it in memory. Each
 * round starts one fresh server per storage, in alternating order, and measures no-op workflows
 * (one no-op activity) on a worker with the service's tuning: a burst (32 starts in flight) and
 * one at a time (start → close as the server recorded them, where a synchronous write to the disk
 * shows most).
 */

type Storage = { name: string; pragmas: readonly string[] | 'in memory' };
const STORAGES: Storage[] = [
  { name: 'in memory (npm test, the benchmarks)', pragmas: 'in memory' },
  { name: "SQLite file, the CLI's own settings (no --sqlite-pragma)", pragmas: [] },
  { name: `SQLite file, ${SQLITE_PRAGMAS.join(' + ')} (npm start)`, pragmas: SQLITE_PRAGMAS },
];
const STARTS_IN_FLIGHT = 32;

type StorageSample = { storage: string; burstPerSecond: number; serverCpuMs: number | null; loneP50Ms: number; walFile: boolean | null };

async function measureOnce(storage: Storage, options: { count: number; lone: number }, cliPath: string, cleanup: CleanupStack): Promise<StorageSample> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-bench-storage-'));
  cleanup.push('remove the work directory', () => rm(workDir, { recursive: true, force: true }));
  const sqlitePragmas = storage.pragmas === 'in memory' ? null : storage.pragmas;
  const dbFile = sqlitePragmas ? path.join(workDir, 'engine.sqlite') : undefined;
  const server = await startTemporalDevServer({
    cliPath,
    port: await freePort(),
    logFile: path.join(workDir, 'temporal.log'),
    ...(sqlitePragmas ? { dbFile, sqlitePragmas } : {}),
  });
  try {
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: 'default' });
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const taskQueue = `bench-storage-${randomUUID()}`;
    const worker = await createNoopWorker(nativeConnection, taskQueue, workerTuning({}));
    const start = () => client.workflow.start(noopWorkflow, { taskQueue, workflowId: `bench-storage-${randomUUID()}` });
    const runOne = async () => (await start()).result();
    const sample = await worker.runUntil(async () => {
      await runBounded(20, STARTS_IN_FLIGHT, runOne); // warm-up
      const cpuBefore = server.pid ? await processCpuMs(server.pid) : null;
      const started = performance.now();
      await runBounded(options.count, STARTS_IN_FLIGHT, runOne);
      const seconds = (performance.now() - started) / 1000;
      const cpuAfter = server.pid ? await processCpuMs(server.pid) : null;
      // A lone workflow's time in the engine: its start to its close, as the server recorded them
      // (the client's wait for the result adds a delay of its own, the same whatever the storage).
      const lone: number[] = [];
      for (let i = 0; i < options.lone; i += 1) {
        const handle = await start();
        await handle.result();
        const { startTime, closeTime } = await handle.describe();
        lone.push(closeTime!.getTime() - startTime.getTime());
      }
      return {
        burstPerSecond: options.count / seconds,
        serverCpuMs: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / options.count,
        loneP50Ms: summarise(lone).p50,
      };
    });
    await nativeConnection.close();
    await connection.close();
    // Which journal SQLite ended up with: a write-ahead log leaves its -wal file next to the database.
    const walFile = dbFile ? (await readdir(workDir)).some((name) => name === 'engine.sqlite-wal') : null;
    return { storage: storage.name, ...sample, walFile };
  } finally {
    await server.stop();
  }
}

/** Runs the rounds and returns the report's markdown table. */
export async function measureStorage(
  options: { count: number; lone: number; rounds: number },
  cliPath: string,
  cleanup: CleanupStack,
  log: (line: string) => void,
): Promise<string> {
  const samples: StorageSample[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    for (const storage of round % 2 === 0 ? STORAGES : [...STORAGES].reverse()) {
      const sample = await measureOnce(storage, options, cliPath, cleanup);
      log(
        `${storage.name}: burst ${sample.burstPerSecond.toFixed(1)} workflows/s, server CPU ${sample.serverCpuMs?.toFixed(2) ?? '?'} ms per workflow, ` +
          `lone p50 ${sample.loneP50Ms.toFixed(1)} ms${sample.walFile === null ? '' : `, WAL file ${sample.walFile ? 'present' : 'absent'}`}`,
      );
      samples.push(sample);
    }
  }
  const lines = [
    `| storage | burst workflows/s (mean of ${options.rounds}) | server CPU ms per workflow | lone workflow start → close p50 ms (mean of the rounds' p50) | write-ahead log |`,
    '| --- | --: | --: | --: | --- |',
  ];
  for (const storage of STORAGES) {
    const mine = samples.filter((sample) => sample.storage === storage.name);
    const cpu = mine.every((sample) => sample.serverCpuMs !== null) ? mean(mine.map((sample) => sample.serverCpuMs!)).toFixed(2) : '?';
    const wal = mine[0]!.walFile === null ? '–' : mine.every((sample) => sample.walFile) ? 'yes' : 'no';
    lines.push(`| ${storage.name} | ${mean(mine.map((sample) => sample.burstPerSecond)).toFixed(1)} | ${cpu} | ${mean(mine.map((sample) => sample.loneP50Ms)).toFixed(1)} | ${wal} |`);
  }
  return lines.join('\n');
}
