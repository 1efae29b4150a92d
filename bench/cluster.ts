import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { startEmbeddedPostgres } from '../scripts/embedded/postgres';
import { freePort } from '../scripts/embedded/ports';
import { writeWorkflowBundle } from '../scripts/bundle-workflows';
import { deliveryBurst, ingestionBurst, killMidBurst, startScaleCluster, type PostgresWrites, type Throughput } from '../testing/cluster-scale';
import { CleanupStack } from './support/cleanup';
import { parseShortAndJson, runMain, warnIfBusy } from './support/cli';
import { fixed, markdownTable } from './support/report';
import { summarise, type LatencySummary } from './support/stats';
import { formatCostTable, heartbeatRequests, measureTemporalCost, type CostRow } from './support/temporal-cost';

/**
 * `npm run bench:cluster [-- --short]`: the production engine (Temporal server 1.32.1 on Postgres,
 * TEMPORAL_HISTORY_SHARDS shards, default 4) with the real API and worker processes: webhook
 * deliveries (events × 2 endpoints) and file ingestion (invoice XMLs through the API, upload →
 * document.imported) with 1 then 2 workers, the scaling factor of each (with 1 worker also
 * LONE_UNITS events and files one at a time: their latency on a quiet cluster), then a worker SIGKILLed
 * a quarter into a mixed burst (lost deliveries and files, files imported twice: all must be 0).
 * The Temporal cost per delivery, per event and per file (workflow and activity tasks, history
 * events, signals, Cloud actions; bench/support/temporal-cost.ts) is read from the histories of
 * the 1-worker bursts; docs/scaling.md builds its capacity worksheet on it.
 * The scenario is testing/cluster-scale.ts, the scale test's at larger counts. Offline; starts
 * its own Postgres and cleans up; exits non-zero on any loss. See docs/performance.md.
 *
 * Environment: BENCH_EVENTS (per phase; 150, short 30), BENCH_FILES (60, short 16).
 */

const log = (line: string) => process.stderr.write(`[bench:cluster] ${line}\n`);

function count(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const LONE_UNITS = 7;

/** LONE_UNITS runs of `unit` one after another, half a second apart: their latencies in ms. */
async function loneLatencies(unit: () => Promise<Throughput>): Promise<LatencySummary> {
  const latencies: number[] = [];
  for (let index = 0; index < LONE_UNITS; index += 1) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    latencies.push((await unit()).seconds * 1000);
  }
  return summarise(latencies);
}

async function main(): Promise<number> {
  const { short } = parseShortAndJson(process.argv.slice(2), process.env);
  const events = count('BENCH_EVENTS', short ? 30 : 150);
  const files = count('BENCH_FILES', short ? 16 : 60);
  const shards = count('TEMPORAL_HISTORY_SHARDS', 4);
  const loadAverage = warnIfBusy(log, os.cpus().length * 0.5);
  const cleanup = new CleanupStack(log);
  cleanup.exitOnSignals();
  try {
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-bench-cluster-'));
    cleanup.push('remove the work directory', () => rm(workDir, { recursive: true, force: true }));
    const postgres = await startEmbeddedPostgres({ dataDir: path.join(workDir, 'postgres'), port: await freePort(), throwaway: true });
    cleanup.push('stop Postgres', () => postgres.stop());
    const workflowBundlePath = path.join(workDir, 'workflow-bundle.js');
    await writeWorkflowBundle(workflowBundlePath);
    const cluster = await startScaleCluster({ postgresAdminUrl: postgres.url(), databasePrefix: 'bench', workDir, historyShards: shards, workflowBundlePath, log });
    cleanup.push('stop the cluster', () => cluster.stop());

    const first = await cluster.startWorker();
    await deliveryBurst(cluster, 5, 300_000);
    await ingestionBurst(cluster, 3, 300_000);
    log('warm-up done; 1 worker…');
    const timeout = 600_000;
    // Bursts are 3 s apart, so each one's cost window holds its own workflows only. Postgres's
    // counters are read 11 s after a burst: an idle backend flushes its statistics within 10 s.
    const pause = (ms = 3_000) => new Promise((resolve) => setTimeout(resolve, ms));
    // Postgres's counters also move with the server's own background work (shard leases, queue
    // ack levels, membership heartbeats): an idle interval first gives that rate, taken out of
    // each burst's interval.
    const snapshot = async () => ({ at: performance.now(), writes: await cluster.postgresWrites(), heartbeats: await heartbeatRequests(cluster.temporalMetricsUrl) });
    const idleStart = await snapshot();
    await pause(11_000);
    const writes = [await snapshot()];
    const cpu = [await cluster.cpuSeconds()];
    const deliveriesOne = await deliveryBurst(cluster, events, timeout);
    cpu.push(await cluster.cpuSeconds());
    await pause(11_000);
    writes.push(await snapshot());
    cpu.push(await cluster.cpuSeconds());
    const filesOne = await ingestionBurst(cluster, files, timeout);
    cpu.push(await cluster.cpuSeconds());
    await pause(11_000);
    writes.push(await snapshot());
    const one = { deliveries: deliveriesOne, files: filesOne };
    // One unit at a time after the bursts: the latency a quiet service shows, where a workflow
    // task waiting on the transfer queue's poll rate shows up (docs/performance.md).
    const lone = { events: await loneLatencies(() => deliveryBurst(cluster, 1, timeout)), files: await loneLatencies(() => ingestionBurst(cluster, 1, timeout)) };
    await pause();
    await cluster.startWorker();
    log('2 workers…');
    const two = { deliveries: await deliveryBurst(cluster, events, timeout), files: await pause().then(() => ingestionBurst(cluster, files, timeout)) };
    log('mixed burst, one worker SIGKILLed…');
    const killed = await killMidBurst(cluster, first, { events, files }, timeout);

    log('reading the histories of the 1-worker bursts…');
    // Each burst's heartbeats: between the snapshots around it (the idle server records none).
    const cost = async (burst: Throughput, heartbeats: number) => (await measureTemporalCost(cluster.client, { taskQueue: cluster.taskQueue, window: burst.window, heartbeats })).total;
    const deliveryCost = await cost(one.deliveries, writes[1]!.heartbeats - writes[0]!.heartbeats);
    const fileCost = await cost(one.files, writes[2]!.heartbeats - writes[1]!.heartbeats);
    const costRows: CostRow[] = [
      { label: 'per delivery (2 endpoints per event)', cost: deliveryCost, units: one.deliveries.units },
      { label: 'per event (2 endpoints)', cost: deliveryCost, units: one.deliveries.units / 2 },
      { label: 'per file (import + document.imported to 1 endpoint)', cost: fileCost, units: one.files.units },
    ];

    type Snapshot = { at: number; writes: PostgresWrites; heartbeats: number };
    const idleSeconds = (writes[0]!.at - idleStart.at) / 1000;
    const writesPer = (before: Snapshot, after: Snapshot, units: number, label: string) => {
      const seconds = (after.at - before.at) / 1000;
      return [
        label,
        ...(['app', 'temporal', 'visibility'] as const).flatMap((database) =>
          (['commits', 'rows'] as const).map((counter) => {
            const idleRate = (writes[0]!.writes[database][counter] - idleStart.writes[database][counter]) / idleSeconds;
            return fixed((after.writes[database][counter] - before.writes[database][counter] - idleRate * seconds) / units, 1);
          }),
        ),
      ];
    };
    const idleRow = [
      'idle, per second',
      ...(['app', 'temporal', 'visibility'] as const).flatMap((database) =>
        (['commits', 'rows'] as const).map((counter) => fixed((writes[0]!.writes[database][counter] - idleStart.writes[database][counter]) / idleSeconds, 1)),
      ),
    ];
    const writesTable = markdownTable(
      ['per unit', 'app transactions', 'app rows written', 'temporal transactions', 'temporal rows written', 'visibility transactions', 'visibility rows written'],
      [
        writesPer(writes[0]!, writes[1]!, one.deliveries.units, 'per delivery'),
        writesPer(writes[1]!, writes[2]!, one.files.units, 'per file (with its document.imported delivery)'),
        idleRow,
      ],
      [false, true, true, true, true, true, true],
    );

    const cpuPer = (before: (typeof cpu)[number], after: (typeof cpu)[number], units: number, label: string) => [
      label,
      ...(['workers', 'api', 'temporalServer'] as const).map((part) => fixed(((after[part] - before[part]) * 1000) / units, 1)),
    ];
    const cpuTable = markdownTable(
      ['per unit', 'worker CPU ms', 'API CPU ms', 'Temporal server CPU ms'],
      [cpuPer(cpu[0]!, cpu[1]!, one.deliveries.units, 'per delivery'), cpuPer(cpu[2]!, cpu[3]!, one.files.units, 'per file (with its document.imported delivery)')],
      [false, true, true, true],
    );

    const row = (what: string, a: Throughput, b: Throughput) => [what, String(a.units), fixed(a.perSecond, 1), fixed(b.perSecond, 1), fixed(b.perSecond / a.perSecond, 2)];
    const heading =
      `Cluster, ${new Date().toISOString().slice(0, 10)}, Temporal server 1.32.1 on Postgres (${shards} history shards), Node ${process.version}, ` +
      `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), load average ${loadAverage.toFixed(1)}${short ? ', short mode' : ''}`;
    const table = markdownTable(
      ['measurement', 'n', '1 worker /s', '2 workers /s', 'scaling ×'],
      [row('webhook deliveries (event × endpoint)', one.deliveries, two.deliveries), row('files, upload → document.imported', one.files, two.files)],
      [false, true, true, true, true],
    );
    const loneTable = markdownTable(
      ['one at a time, 1 worker', 'n', 'p50 ms', 'max ms'],
      [
        ['event → its 2 deliveries arrived', String(LONE_UNITS), fixed(lone.events.p50, 0), fixed(lone.events.max, 0)],
        ['file, upload → document.imported', String(LONE_UNITS), fixed(lone.files.p50, 0), fixed(lone.files.max, 0)],
      ],
      [false, true, true, true],
    );
    const kill =
      `Worker SIGKILLed after ${killed.receivedBeforeKill} of ${killed.deliveries.accepted + killed.files.accepted} arrivals: deliveries lost ${killed.deliveries.lost} of ${killed.deliveries.accepted}, ` +
      `files lost ${killed.files.lost} of ${killed.files.accepted}, imported twice ${killed.files.duplicateDocuments}; duplicate webhook arrivals (at least once) ${cluster.receiver.duplicates()}`;
    process.stdout.write(`${heading}\n\n${table}\n\n${loneTable}\n\n${kill}\n\nTemporal cost per unit (1-worker bursts):\n\n${formatCostTable(costRows)}\n\nPostgres per unit (pg_stat_database: transactions, reads included, and rows inserted + updated + deleted; the idle rate is taken out):\n\n${writesTable}\n\nCPU per unit (1-worker bursts, /proc; Postgres not included):\n\n${cpuTable}\n`);
    return killed.deliveries.lost + killed.files.lost + killed.files.duplicateDocuments === 0 ? 0 : 1;
  } finally {
    await cleanup.runAll();
  }
}

runMain(main);
