import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { onShutdownSignal } from '../config/shutdown';
import { installProcessSafetyNet } from '../config/process-safety';
import { connectDatabase, migrateToLatest } from '../db/connection';
import { createRepositories } from '../db/repositories';
import { startLocalServices, type TemporalEngine } from './embedded/local-services';
import { claimDataDir } from './embedded/run-record';
import { demoHints, seedDemoOnFirstRun } from './demo-seed';
import { SecretBox } from '../domain/secret-box';
import { loadMasterKey } from '../config/master-key';
import { createBlobStore } from '../storage/create-blob-store';
import { startDianSimulator } from '../integrations/dian/simulator/server';
import { verifyXadesSignature } from '../domain/dian/xades';
import { SupervisedPart, type PartSpec } from './supervisor';
import { RESTART_POLICY } from './restart-policy';
import { startTcpBalancer } from './embedded/tcp-balancer';
import { freePort } from './embedded/ports';
import { buildParts, type PartName } from './build-parts';

/** What `npm start` and `npm run start:cluster` differ in. */
export type StackShape = {
  command: string;
  temporal: TemporalEngine;
  /** More than one: each listens on a free loopback port, behind a TCP balancer on PORT. */
  apiReplicas: number;
  workerReplicas: number;
};

/**
 * The whole service on one machine, as in production: the API, the worker and the SMTP intake
 * each in processes of their own (api/main.ts, worker/main.ts, intake/main.ts), supervised here
 * and restarted when one dies (scripts/supervisor.ts). This process owns what they share:
 * embedded Postgres and Temporal (unless DATABASE_URL / TEMPORAL_ADDRESS are set), the
 * migrations, the workflow bundle, the DIAN simulator and, with several API replicas, the
 * balancer in front of them; the parts get their URLs by environment. Ctrl-C stops the parts,
 * then the services.
 */
export function runStack(shape: StackShape): void {
  main(shape).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

async function main(shape: StackShape) {
  const config = loadConfig();
  installProcessSafetyNet(createLogger(config, 'start'));
  // After a closed terminal (SIGHUP) every write to it fails (EIO): the orderly stop that
  // follows must not die of its own progress lines.
  for (const output of [process.stdout, process.stderr]) output.on('error', () => undefined);
  const say = (line: string) => console.log(`[start] ${line}`);

  // Stops what a crashed `npm start` on this DATA_DIR left running (run-record.ts).
  const record = await claimDataDir(config.dataDir, say);
  const stops: (() => Promise<void>)[] = [() => record.remove()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: Error) => say(`while stopping: ${error.message}`));
  };
  onShutdownSignal(stopAll, say);

  try {
    const services = await startLocalServices(config, say, shape.temporal, (pids) => void record.update((r) => Object.assign(r, { temporal: pids.temporalPid, temporalUi: pids.temporalUiPid })));
    stops.push(() => services.stop());
    await record.update((r) => Object.assign(r, { temporal: services.temporalPid, temporalUi: services.temporalUiPid }));

    const db = connectDatabase(services.databaseUrl, 2);
    const applied = await migrateToLatest(db);
    if (applied.length) say(`migrations applied: ${applied.length}`);
    // Companies whose DIAN environment is 'simulator' talk to DIAN_SIMULATOR_URL, or to an
    // embedded one whose catalogue (documents, events) is kept under DATA_DIR like DIAN's.
    let dianSimulatorUrl = config.dian.simulatorUrl;
    if (!dianSimulatorUrl) {
      const simulator = await startDianSimulator({
        verifyApplicationResponse: verifyXadesSignature,
        stateFile: path.join(config.dataDir, 'dian-simulator.json'),
      });
      stops.push(() => simulator.close());
      dianSimulatorUrl = simulator.url;
    }
    const masterKey = loadMasterKey(config);
    const blobStore = createBlobStore(config, masterKey, () => config.http.publicBaseUrl ?? '');
    const demo = await seedDemoOnFirstRun(createRepositories(db), blobStore, config, { secretBox: new SecretBox(masterKey), simulatorUrl: dianSimulatorUrl });
    await db.destroy();

    // Bundled and compiled once here, so a restarted worker is back in seconds instead of
    // re-running webpack, and no part loads tsx (docs/performance.md "Memory").
    const runDir = path.join(config.dataDir, 'run');
    let workflowBundlePath = process.env.WORKFLOW_BUNDLE_PATH;
    say('compiling the parts…');
    const compiled = buildParts(runDir);
    if (!workflowBundlePath) {
      say('bundling workflows…');
      workflowBundlePath = path.join(runDir, 'workflow-bundle.js');
      await runToCompletion('scripts/bundle-workflows.ts', [workflowBundlePath]);
    }
    await compiled;

    const shared: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: config.dataDir,
      DATABASE_URL: services.databaseUrl,
      TEMPORAL_ADDRESS: services.temporalAddress,
      DIAN_SIMULATOR_URL: dianSimulatorUrl,
    };
    const apiPorts = shape.apiReplicas > 1 ? await Promise.all(Array.from({ length: shape.apiReplicas }, () => freePort())) : [config.http.port];
    const publicUrl = `http://${config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host}:${config.http.port}`;
    const specs: PartSpec[] = [
      ...replicas('worker', shape.workerReplicas, runDir, (n) => ({ ...shared, WORKFLOW_BUNDLE_PATH: workflowBundlePath, WORKER_METRICS_PORT: replicaPort(config.metrics.workerPort, n), WORKER_SDK_METRICS_PORT: replicaPort(config.metrics.workerSdkPort, n) })),
      ...replicas('api', shape.apiReplicas, runDir, (n) =>
        shape.apiReplicas > 1
          ? { ...shared, HOST: '127.0.0.1', PORT: String(apiPorts[n]), PUBLIC_BASE_URL: config.http.publicBaseUrl ?? publicUrl, METRICS_PORT: replicaPort(config.metrics.apiPort, n) }
          : shared,
      ),
      ...(config.email.port > 0 ? [{ name: 'intake', part: 'intake' as const, compiledDir: runDir, env: shared }] : []),
    ];
    const parts = specs.map(
      (spec) =>
        new SupervisedPart(
          spec,
          {
            log: say,
            spawned: (pid) => void record.update((r) => (r.parts[spec.name] = pid)),
          },
          { ...RESTART_POLICY, unresponsiveAfterMs: config.supervisor.partUnresponsiveMs },
        ),
    );
    // Stopped in reverse: intake and API first (no new work), the workers last.
    for (const part of parts) stops.push(() => part.stop());
    say(`starting ${specs.map((spec) => spec.name).join(', ')}…`);
    const ready = await Promise.all(parts.map((part) => part.start()));
    const intake = config.email.port > 0 ? ready[ready.length - 1] : undefined;
    let api = ready[shape.workerReplicas]!;
    if (shape.apiReplicas > 1) {
      const balancer = await startTcpBalancer({ host: config.http.host, port: config.http.port, backends: apiPorts.map((port) => ({ host: '127.0.0.1', port })) });
      stops.push(() => balancer.close());
      api = { ...api, url: balancer.url };
      say(`API replicas on ${apiPorts.map((port) => `127.0.0.1:${port}`).join(', ')}, balanced round robin (per connection) on port ${balancer.port}`);
    }

    say(`API:         ${api.url}   (health: ${api.url}/healthz, OpenAPI: ${api.url}/v1/openapi.json)`);
    if (intake?.smtp) say(`SMTP:        smtp://${intake.smtp.host}:${intake.smtp.port}   (company inboxes: <inbox_token>@${intake.smtp.domain}, see inbox_email)`);
    say(`Temporal:    ${services.temporalAddress} (${services.temporalEngine})`);
    say(`Temporal UI: ${services.temporalUiUrl ?? `(external Temporal at ${services.temporalAddress})`}`);
    say(`Postgres:    ${redactPassword(services.databaseUrl)}`);
    say(`DIAN simulator: ${dianSimulatorUrl}   (companies with environment 'simulator', docs/dian.md)`);
    const metrics = metricsUrls(config, shape);
    if (metrics) say(`metrics:     ${metrics}   (Prometheus text format, docs/operations.md)`);
    say(`processes:   ${parts.map((part) => `${part.spec.name} ${part.pid}`).join(', ')} (restarted when one dies; docs/operations.md)`);
    if (demo) {
      say('first run: created a demo company and an admin API key (shown only now, keep it):');
      console.log(JSON.stringify(demo, null, 2));
      say('try (README, "Quick start"):');
      for (const line of demoHints(api.url ?? config.http.publicBaseUrl ?? '', demo)) console.log(`  ${line}`);
    }
    say('press Ctrl-C to stop');
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Part specs named `name` (one) or `name-1` … `name-n`; env gets the replica's index from 0. */
function replicas(part: PartName, count: number, compiledDir: string, env: (index: number) => NodeJS.ProcessEnv): PartSpec[] {
  return Array.from({ length: count }, (_, index) => ({ name: count === 1 ? part : `${part}-${index + 1}`, part, compiledDir, env: env(index) }));
}

/**
 * The n-th replica's metrics port: the configured one for the first, then 10 further per replica
 * (api 9464 → 9474, worker 9465 → 9475, worker SDK 9466 → 9476), clear of the other parts' defaults.
 */
function replicaPort(base: number, index: number): string {
  return String(base === 0 ? 0 : base + 10 * index);
}

function metricsUrls(config: ReturnType<typeof loadConfig>, shape: StackShape): string {
  const host = config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host;
  const { apiPort, workerPort, workerSdkPort, intakePort } = config.metrics;
  const parts: [string, number][] = [
    ...Array.from({ length: shape.apiReplicas }, (_, n): [string, number] => [`api${shape.apiReplicas > 1 ? ` ${n + 1}` : ''}`, apiPort && apiPort + 10 * n]),
    ...Array.from({ length: shape.workerReplicas }, (_, n): [string, number][] => {
      const suffix = shape.workerReplicas > 1 ? ` ${n + 1}` : '';
      return [[`worker${suffix}`, workerPort && workerPort + 10 * n], [`worker SDK${suffix}`, workerSdkPort && workerSdkPort + 10 * n]];
    }).flat(),
    ...(config.email.port > 0 ? [['intake', intakePort] as [string, number]] : []),
  ];
  return parts.filter(([, port]) => port > 0).map(([name, port]) => `${name} http://${host}:${port}/metrics`).join(', ');
}

/** Runs a TypeScript script of this project in a child process and waits for it to succeed. */
function runToCompletion(entry: string, args: string[]): Promise<void> {
  const root = path.resolve(__dirname, '..');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, entry), ...args], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${entry} failed (${signal ?? `exit ${code}`})`))));
  });
}

function redactPassword(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]+@/, '//$1:***@');
}
