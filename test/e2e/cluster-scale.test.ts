import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { deliveryBurst, ingestionBurst, killMidBurst, startScaleCluster, type ScaleCluster, type Throughput } from '../../testing/cluster-scale';
import { sharedWorkflowBundle } from '../support/workflow-bundle';

// The production engine (issue #13): the Temporal server on Postgres with 4 history shards, the
// real API and worker processes. Webhook deliveries and file ingestion with 1 then 2 workers
// (throughput printed, not asserted: on 2 shared cores a second worker adds no CPU), then a
// worker killed with SIGKILL mid-burst: the survivor finishes everything, nothing is lost and
// no file is imported twice. bench/cluster.ts runs the same at larger counts.
const EVENTS = 30; // × 2 endpoints
const FILES = 16;
const KILL = { events: 20, files: 12 };

let workDir: string;
let cluster: ScaleCluster | undefined;

test.before(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-cluster-scale-'));
});
test.after.always(async () => {
  await cluster?.stop();
  await rm(workDir, { recursive: true, force: true });
});

const rate = (result: Throughput, unit: string) => `${result.units} ${unit} in ${result.seconds.toFixed(1)} s = ${result.perSecond.toFixed(1)}/s`;

test('on the Temporal cluster, a second worker shares the load and a worker killed mid-burst loses nothing', async (t) => {
  t.timeout(420_000);
  const log = (line: string) => t.log(line);
  cluster = await startScaleCluster({
    postgresAdminUrl: process.env.TEST_PG_ADMIN_URL!,
    databasePrefix: `scale_${process.pid}`,
    workDir,
    historyShards: 4,
    workflowBundlePath: sharedWorkflowBundle,
    log,
  });
  const first = await cluster.startWorker();
  // Warm-up (first workflow runs, connections, JIT), not counted.
  await deliveryBurst(cluster, 3, 120_000);
  await ingestionBurst(cluster, 2, 120_000);

  const deliveriesOne = await deliveryBurst(cluster, EVENTS, 120_000);
  const filesOne = await ingestionBurst(cluster, FILES, 120_000);
  await cluster.startWorker();
  const deliveriesTwo = await deliveryBurst(cluster, EVENTS, 120_000);
  const filesTwo = await ingestionBurst(cluster, FILES, 120_000);
  const lines = [
    `deliveries: 1 worker ${rate(deliveriesOne, 'deliveries')}, 2 workers ${rate(deliveriesTwo, 'deliveries')}, scaling ×${(deliveriesTwo.perSecond / deliveriesOne.perSecond).toFixed(2)}`,
    `ingestion:  1 worker ${rate(filesOne, 'files')}, 2 workers ${rate(filesTwo, 'files')}, scaling ×${(filesTwo.perSecond / filesOne.perSecond).toFixed(2)}`,
  ];

  const outcome = await killMidBurst(cluster, first, KILL, 180_000);
  lines.push(
    `worker SIGKILLed after ${outcome.receivedBeforeKill} of ${outcome.deliveries.accepted + outcome.files.accepted} arrivals: ` +
      `deliveries accepted ${outcome.deliveries.accepted} / received ${outcome.deliveries.received} / lost ${outcome.deliveries.lost}; ` +
      `files accepted ${outcome.files.accepted} / imported ${outcome.files.imported} / lost ${outcome.files.lost}, ${outcome.files.documents} documents, ${outcome.files.duplicateDocuments} imported twice`,
  );
  for (const line of lines) {
    t.log(line);
    console.log(`[cluster-scale] ${line}`);
  }
  t.true(outcome.receivedBeforeKill < outcome.deliveries.accepted + outcome.files.accepted, 'the kill happens mid-burst');
  t.is(outcome.deliveries.lost, 0);
  t.is(outcome.files.lost, 0);
  t.is(outcome.files.documents, KILL.files, 'one document per file');
  t.is(outcome.files.duplicateDocuments, 0);
});
