import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { msToTs } from '@temporalio/common/lib/time';
import { stringify } from 'yaml';
import { searchAttributePairs } from '../../domain/search-attributes';
import { registerSearchAttributes } from '../../temporal/register-search-attributes';
import { freePortsBetween, waitForPort } from './ports';
import { CLUSTER_DYNAMIC_CONFIG, dynamicConfigDocument } from './temporal-dynamic-config';

/**
 * The production Temporal engine on this machine: the `temporal-server` binary
 * (scripts/provision/temporal-server.ts) running its four services (frontend, history,
 * matching, worker) in one process, persisting to Postgres databases `temporal` and
 * `temporal_visibility` (SQL visibility, which stores custom search attributes in the
 * pre-allocated columns of Postgres 12+ schemas: no Elasticsearch and no dynamic config
 * switch needed). Optionally the Temporal UI server next to it. Used by
 * `npm run start:cluster` and the scale test.
 */
export type TemporalClusterOptions = {
  serverPath: string;
  sqlToolPath: string;
  /** schema/postgresql/v12 of the server's Go module. */
  schemaDir: string;
  /** Superuser access to the Postgres that holds the two databases. */
  postgres: { host: string; port: number; user: string; password: string };
  /** Config, dynamic config and log go here. */
  dir: string;
  /** The frontend's gRPC port (what clients dial). */
  frontendPort: number;
  /** Database names; default `temporal` and `temporal_visibility` (the scale test uses its own pair). */
  databases?: { default: string; visibility: string };
  /** History shards: fixed for the life of the databases (Temporal cannot reshard). */
  historyShards: number;
  ui?: { serverPath: string; port: number };
  /** Serves the server's Prometheus metrics on 127.0.0.1:metricsPort/metrics (the scale benchmark counts heartbeats there). */
  metricsPort?: number;
  /** The server and the UI server each in a session of its own, as the dev server's ownSession (npm run start:cluster). */
  ownSession?: boolean;
  log?: (line: string) => void;
};

export type TemporalCluster = {
  address: string;
  uiUrl: string | null;
  pid?: number;
  uiPid?: number;
  /** Resolves when the server or the UI server exits. */
  exited: Promise<void>;
  stop(): Promise<void>;
};

export const TEMPORAL_DATABASES = { default: 'temporal', visibility: 'temporal_visibility' } as const;
const NAMESPACE_RETENTION = '3 days';
const GRPC_ALREADY_EXISTS = 6;

export async function startTemporalCluster(options: TemporalClusterOptions): Promise<TemporalCluster> {
  await mkdir(options.dir, { recursive: true });
  await migrateTemporalDatabases(options);
  const children: { child: ChildProcess; exited: Promise<void> }[] = [];
  const stop = async () => {
    for (const { child, exited } of children.reverse()) await stopChild(child, exited);
  };
  const serverLog = path.join(options.dir, 'server.log');
  try {
    // The internal ports are picked free, then bound by the server a moment later: another
    // process can take one in between (the suite's CI once saw the server exit during start-up).
    // Such a start is tried again on other ports, at most three times.
    for (let attempt = 1; ; attempt += 1) {
      const configFile = await writeServerConfig(options);
      const server = await spawnLogged(options.serverPath, ['--config-file', configFile, '--allow-no-auth', 'start'], serverLog, options.ownSession);
      children.push(server);
      try {
        await untilListening(options.frontendPort, server.exited, 'the Temporal server', serverLog);
        break;
      } catch (error) {
        if (attempt >= 3 || !(await readFile(serverLog, 'utf8')).includes('address already in use')) throw error;
        options.log?.(`the Temporal server found a port taken (attempt ${attempt}); starting it again on other ports`);
      }
    }
    const address = `127.0.0.1:${options.frontendPort}`;
    await prepareDefaultNamespace(address);
    options.log?.(`Temporal server ${path.basename(options.serverPath)} on ${address} (Postgres, ${options.historyShards} history shards)`);

    let uiUrl: string | null = null;
    if (options.ui) {
      const uiDir = path.join(options.dir, 'ui');
      await writeUiConfig(uiDir, address, options.ui.port);
      const ui = await spawnLogged(options.ui.serverPath, ['--root', uiDir, '--env', 'cluster', 'start'], path.join(options.dir, 'ui.log'), options.ownSession);
      children.push(ui);
      await untilListening(options.ui.port, ui.exited, 'the Temporal UI server', path.join(options.dir, 'ui.log'));
      uiUrl = `http://127.0.0.1:${options.ui.port}`;
    }
    return { address, uiUrl, pid: children[0]?.child.pid, uiPid: children[1]?.child.pid, exited: Promise.race(children.map((child) => child.exited)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Creates the two databases when missing and brings their schemas to the server's version with
 * the server's own tool, as docker-compose.yml's temporal-schema job does. Every step is
 * idempotent (`create` and `setup-schema -v 0.0` leave an existing database alone,
 * `update-schema` applies only the versioned steps not applied yet), so every start runs them.
 */
export async function migrateTemporalDatabases(options: Pick<TemporalClusterOptions, 'sqlToolPath' | 'schemaDir' | 'postgres' | 'databases'>): Promise<void> {
  const { host, port, user, password } = options.postgres;
  const databases = options.databases ?? TEMPORAL_DATABASES;
  const steps: [string, string][] = [
    [databases.default, 'temporal'],
    [databases.visibility, 'visibility'],
  ];
  for (const [database, schema] of steps) {
    const tool = (...args: string[]) =>
      promisify(execFile)(options.sqlToolPath, ['--plugin', 'postgres12', '--ep', host, '--port', String(port), '--user', user, '--password', password, '--db', database, ...args]);
    await tool('create-database');
    await tool('setup-schema', '-v', '0.0');
    await tool('update-schema', '-d', path.join(options.schemaDir, schema, 'versioned'));
  }
}

/** The server's static config (one process, four services) and its dynamic config file. */
async function writeServerConfig(options: TemporalClusterOptions): Promise<string> {
  // The services' internal ports, free ones picked per start, below 32768: membership (ringpop)
  // ports because Temporal keeps them in a Postgres smallint column (cluster_membership.rpc_port);
  // gRPC ports too: the kernel hands ports of 32768 and up to outgoing connections as well.
  const [historyGrpc, matchingGrpc, workerGrpc, frontendMembership, historyMembership, matchingMembership, workerMembership] = await freePortsBetween(7, 20_000, 32_768);
  const { host, port, user, password } = options.postgres;
  const databases = options.databases ?? TEMPORAL_DATABASES;
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: { pluginName: 'postgres12', databaseName, connectAddr: `${host}:${port}`, connectProtocol: 'tcp', user, password, maxConns, maxIdleConns: maxConns, maxConnLifetime: '1h' },
  });
  const rpc = (grpcPort: number, membershipPort: number) => ({ rpc: { grpcPort, membershipPort, bindOnLocalHost: true } });
  const dynamicConfigFile = path.join(options.dir, 'dynamic-config.yaml');
  await writeFile(
    dynamicConfigFile,
    stringify(dynamicConfigDocument(CLUSTER_DYNAMIC_CONFIG)),
  );
  const config = {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: options.historyShards,
      datastores: {
        'postgres-default': datastore(databases.default, 20),
        'postgres-visibility': datastore(databases.visibility, 5),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      ...(options.metricsPort ? { metrics: { prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${options.metricsPort}` } } } : {}),
    },
    services: {
      frontend: rpc(options.frontendPort, frontendMembership),
      history: rpc(historyGrpc, historyMembership),
      matching: rpc(matchingGrpc, matchingMembership),
      worker: rpc(workerGrpc, workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${options.frontendPort}` } },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
  const file = path.join(options.dir, 'server.yaml');
  await writeFile(file, stringify(config));
  return file;
}

async function writeUiConfig(uiDir: string, temporalAddress: string, port: number): Promise<void> {
  await mkdir(path.join(uiDir, 'config'), { recursive: true });
  await writeFile(
    path.join(uiDir, 'config', 'cluster.yaml'),
    stringify({ temporalGrpcAddress: temporalAddress, host: '127.0.0.1', port, enableUi: true, defaultNamespace: 'default', notifyOnNewVersion: false, refreshInterval: '0s' }),
  );
}

/**
 * Registers `default` and the service's search attributes (both idempotent), then waits until a
 * workflow carrying every one of them can start: the history service learns of a new namespace
 * by its periodic cache refresh (~10 s), and the frontend validates search attributes against a
 * cache refreshed every 60 s, so a start right after registration fails ("no mapping defined
 * for search attribute"). The probe workflow is terminated at once.
 */
async function prepareDefaultNamespace(address: string): Promise<void> {
  const { Client, Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService
      .registerNamespace({ namespace: 'default', workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION) })
      .catch((error: { code?: number }) => {
        if (error.code !== GRPC_ALREADY_EXISTS) throw error;
      });
    const client = new Client({ connection, namespace: 'default' });
    const typedSearchAttributes = searchAttributePairs({ companyId: 0, documentId: 0, uploadedFileId: 0, endpointId: 0, eventType: 'probe', cufe: 'probe', dianEventCode: 'probe', exportId: 0 });
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        await registerSearchAttributes(client, 'default');
        const probe = await client.workflow.start('clusterReadinessProbe', {
          taskQueue: 'cluster-readiness-probe',
          workflowId: `cluster-readiness-probe-${Date.now()}`,
          typedSearchAttributes,
        });
        await probe.terminate('readiness probe');
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`namespace default is not usable 120 s after registration: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  } finally {
    await connection.close();
  }
}

async function spawnLogged(command: string, args: string[], logFile: string, ownSession = false): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const logHandle = await open(logFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', logHandle.fd, logHandle.fd], detached: ownSession });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => logHandle.close());
  return { child, exited };
}

async function untilListening(port: number, exited: Promise<void>, what: string, logFile: string): Promise<void> {
  await Promise.race([
    waitForPort(port, 120_000),
    exited.then(() => {
      throw new Error(`${what} exited during start-up; see ${logFile}`);
    }),
  ]);
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}
