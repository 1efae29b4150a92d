/**
 * What the Temporal dev server itself allows, apart from the service's work: no-op workflows
 * (one no-op activity) against a dev server with the server's default 4 partitions per task
 * queue and with the 1 that scripts/embedded/temporal-dev-server.ts configures, on a worker with
 * the service's tuning (worker/tuning.ts: 2 pollers of each kind) and on one with the SDK's
 * defaults (10 pollers, as the other benchmarks' no-op baselines); and, for each, the same
 * workflow with a delivery's three search attributes, with those and one patch marker (the shape
 * of a delivery before decision 0018), and with the attributes started eagerly by the worker
 * (a client on its NativeConnection, as the service's activities start). Variants alternate within each server so its slow drift (it keeps every closed
 * workflow in memory) affects both alike.
 * docs/performance.md, "Task-queue partitions and pollers" and "Eager starts and patch-free
 * workflow types".
 *
 *   npm run bench:engine            # 300 workflows a run, 4 rounds, about 5 minutes
 *   npm run bench:engine -- --short # 100 workflows a run, 2 rounds, about 1 minute
 *   npm run bench:engine -- --storage [--short]
 *                                   # only the dev server's storage: in memory, SQLite file with
 *                                   # the CLI's settings, with npm start's pragmas (bench/engine/storage.ts)
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type WorkerOptions } from '@temporalio/worker';
import { searchAttributePairs } from '../domain/search-attributes';
import { freePort } from '../scripts/embedded/ports';
import { startTemporalDevServer } from '../scripts/embedded/temporal-dev-server';
import { ensureTemporalCli } from '../scripts/provision/temporal-cli';
import { registerSearchAttributes } from '../temporal/register-search-attributes';
import { workerTuning } from '../worker/tuning';
import { createNoopWorker } from './engine/noop-worker';
import { measureStorage } from './engine/storage';
import { deliveryShapedNoopWorkflow, localNoopWorkflow, noopWorkflow } from './engine/workflows';
import { CleanupStack } from './support/cleanup';
import { parseShortAndJson, runMain, warnIfBusy } from './support/cli';
import { processCpuMs } from './support/process-cpu';
import { mean, runBounded } from './support/stats';

const log = (line: string) => console.error(`[bench:engine] ${line}`);
const STARTS_IN_FLIGHT = 32;
const RESULT_WAITERS = 500;

type Variant = { name: string; workflow: typeof noopWorkflow; subject: boolean; eager?: boolean };
const VARIANTS: Variant[] = [
  { name: 'no-op workflow', workflow: noopWorkflow, subject: false },
  { name: 'no-op with 3 search attributes', workflow: noopWorkflow, subject: true },
  { name: 'delivery-shaped no-op (3 search attributes, 1 patch)', workflow: deliveryShapedNoopWorkflow, subject: true },
  { name: 'no-op with 3 search attributes, started eagerly by the worker', workflow: noopWorkflow, subject: true, eager: true },
  { name: 'no-op whose step is a local activity', workflow: localNoopWorkflow, subject: false },
];
type Sample = { variant: string; partitions: number; pollers: string; perSecond: number; serverCpuMs: number | null };
type Pollers = { name: string; tuning: Partial<WorkerOptions> };
const POLLERS: Pollers[] = [
  { name: "the service's (worker/tuning.ts)", tuning: workerTuning({}) },
  { name: "the SDK's defaults (the other benchmarks' no-op baseline)", tuning: {} },
];

async function measureServer(partitions: number, options: { count: number; rounds: number }, cliPath: string, cleanup: CleanupStack): Promise<Sample[]> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-bench-engine-'));
  cleanup.push('remove the work directory', () => rm(workDir, { recursive: true, force: true }));
  const server = await startTemporalDevServer({ cliPath, port: await freePort(), logFile: path.join(workDir, 'temporal.log'), taskQueuePartitions: partitions });
  try {
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: 'default' });
    await registerSearchAttributes(client, 'default');
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const eagerClient = new Client({ connection: nativeConnection, namespace: 'default' });
    const subject = searchAttributePairs({ companyId: 12, endpointId: 34, eventType: 'contact.created' });
    const samples: Sample[] = [];
    for (const pollers of POLLERS) {
      const taskQueue = `bench-engine-${randomUUID()}`;
      const worker = await createNoopWorker(nativeConnection, taskQueue, pollers.tuning);
      const run = async (variant: Variant, count: number): Promise<Sample> => {
        const cpuBefore = server.pid ? await processCpuMs(server.pid) : null;
        const started = performance.now();
        const results: Promise<unknown>[] = [];
        await runBounded(count, STARTS_IN_FLIGHT, async () => {
          const handle = await (variant.eager ? eagerClient : client).workflow.start(variant.workflow, {
            taskQueue,
            ...(variant.eager ? { requestEagerStart: true } : {}),
            workflowId: `bench-engine-${randomUUID()}`,
            ...(variant.subject ? { typedSearchAttributes: subject } : {}),
          });
          results.push(handle.result());
        });
        for (let i = 0; i < results.length; i += RESULT_WAITERS) await Promise.all(results.slice(i, i + RESULT_WAITERS));
        const seconds = (performance.now() - started) / 1000;
        const cpuAfter = server.pid ? await processCpuMs(server.pid) : null;
        const serverCpuMs = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / count;
        return { variant: variant.name, partitions, pollers: pollers.name, perSecond: count / seconds, serverCpuMs };
      };
      await worker.runUntil(async () => {
        await run(VARIANTS[0]!, 50); // warm-up
        for (let round = 0; round < options.rounds; round += 1) {
          for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
            const sample = await run(variant, options.count);
            log(`${partitions} partition(s), pollers ${pollers.name}, ${variant.name}: ${sample.perSecond.toFixed(1)} workflows/s, server CPU ${sample.serverCpuMs?.toFixed(2) ?? '?'} ms per workflow`);
            samples.push(sample);
          }
        }
      });
    }
    await nativeConnection.close();
    await connection.close();
    return samples;
  } finally {
    await server.stop();
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const storageOnly = args.includes('--storage');
  const { short } = parseShortAndJson(args.filter((arg) => arg !== '--storage'), process.env);
  const options = { count: short ? 100 : 300, rounds: short ? 2 : 4 };
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cleanup = new CleanupStack(log);
  cleanup.exitOnSignals();
  const loadAtStart = warnIfBusy(log, 1.5);
  try {
    const cliPath = await ensureTemporalCli(log);
    if (storageOnly) {
      const table = await measureStorage({ ...options, lone: short ? 20 : 50 }, cliPath, cleanup, log);
      console.log(`\nTemporal dev server by storage, no-op workflows — ${new Date().toISOString()}, ${options.count} a burst, ${options.rounds} rounds, ${os.cpus().length} cores, 1-min load average ${loadAtStart.toFixed(2)} at start, ${os.loadavg()[0]!.toFixed(2)} at end\n`);
      console.log(table);
      return 0;
    }
    const samples = [...(await measureServer(4, options, cliPath, cleanup)), ...(await measureServer(1, options, cliPath, cleanup))];
    console.log(`\nTemporal dev server, no-op workflows by task-queue partitions and worker pollers — ${new Date().toISOString()}, ${options.count} workflows a run, ${options.rounds} rounds, ${os.cpus().length} cores, 1-min load average ${loadAtStart.toFixed(2)} at start, ${os.loadavg()[0]!.toFixed(2)} at end\n`);
    console.log('| task-queue partitions | worker pollers | workflow | workflows/s (mean) | server CPU ms per workflow (mean) | vs no-op, same server and worker |');
    console.log('| --: | --- | --- | --: | --: | --: |');
    for (const partitions of [4, 1]) {
      for (const pollers of POLLERS) {
        const of = (variant: Variant) => samples.filter((s) => s.partitions === partitions && s.pollers === pollers.name && s.variant === variant.name);
        const plain = mean(of(VARIANTS[0]!).map((s) => s.perSecond));
        for (const variant of VARIANTS) {
          const mine = of(variant);
          const cpu = mine.every((s) => s.serverCpuMs !== null) ? mean(mine.map((s) => s.serverCpuMs!)).toFixed(2) : '?';
          const rate = mean(mine.map((s) => s.perSecond));
          console.log(`| ${partitions} | ${pollers.name} | ${variant.name} | ${rate.toFixed(1)} | ${cpu} | ${(rate / plain).toFixed(2)} |`);
        }
      }
    }
    return 0;
  } finally {
    await cleanup.runAll();
  }
}

runMain(main);
