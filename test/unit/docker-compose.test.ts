import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { searchAttributes } from '../../domain/search-attributes';
import { DEFAULT_WORKER_V8_FLAGS, PART_ENTRIES } from '../../scripts/build-parts';
import { CLUSTER_DYNAMIC_CONFIG, dynamicConfigDocument } from '../../scripts/embedded/temporal-dynamic-config';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_SERVER_VERSION } from '../../scripts/provision/temporal-server';

// No Docker engine runs these files in CI, so they are checked statically: the compose file
// must hang together, and the Dockerfile must run npm scripts that exist.

const root = path.resolve(__dirname, '../..');
const REQUIRED_SERVICES = ['postgres', 'temporal-schema', 'temporal', 'temporal-namespace', 'temporal-ui', 'minio', 'migrate', 'api', 'api-balancer', 'worker', 'intake'];
/** The services that run this project's code (built from the Dockerfile, after the migrations). */
const APP_SERVICES = ['api', 'worker', 'intake'];

type Service = Record<string, unknown>;
type Compose = { services: Record<string, Service>; volumes: Record<string, unknown> };

function loadCompose(): Compose {
  // merge: `<<: *anchor` keys, as Docker Compose resolves them.
  const document: unknown = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
  if (!isRecord(document) || !isRecord(document.services)) throw new Error('docker-compose.yml has no services');
  const services: Record<string, Service> = {};
  for (const [name, service] of Object.entries(document.services)) {
    if (!isRecord(service)) throw new Error(`service ${name} is not a mapping`);
    services[name] = service;
  }
  return { services, volumes: isRecord(document.volumes) ? document.volumes : {} };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dependsOn(service: Service): string[] {
  const value = service.depends_on;
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map(String);
  if (isRecord(value)) return Object.keys(value);
  throw new Error(`depends_on must be a list or a mapping, got ${JSON.stringify(value)}`);
}

/** `environment:` as a mapping or as a list of KEY=VALUE. */
function environmentOf(service: Service): Record<string, string> {
  const value = service.environment;
  if (value === undefined || value === null) return {};
  if (Array.isArray(value)) {
    return Object.fromEntries(
      value.map((entry) => {
        const [key, ...rest] = String(entry).split('=');
        return [key, rest.join('=')];
      }),
    );
  }
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, v === null ? '' : String(v)]));
  throw new Error(`environment must be a list or a mapping, got ${JSON.stringify(value)}`);
}

/** The command a service runs, as one string (list or string form). */
function commandOf(service: Service): string | undefined {
  const value = service.command;
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.map(String).join(' ') : String(value);
}

/** Named volumes a service mounts (short `name:/path[:mode]` or long `{ type: volume, source }`). */
function namedVolumesOf(service: Service): string[] {
  const value = service.volumes;
  if (!Array.isArray(value)) return [];
  const names: string[] = [];
  for (const mount of value) {
    if (typeof mount === 'string') {
      const parts = mount.split(':');
      if (parts.length < 2) continue; // anonymous volume
      const source = parts[0];
      if (/^[./~$]/.test(source) || source.includes('/')) continue; // bind mount
      names.push(source);
    } else if (isRecord(mount) && (mount.type ?? 'volume') === 'volume' && typeof mount.source === 'string') {
      names.push(mount.source);
    }
  }
  return names;
}

/** [host, container] port pairs a service publishes. */
function publishedPorts(service: Service): [string, string][] {
  const value = service.ports;
  if (!Array.isArray(value)) return [];
  return value.map((port): [string, string] => {
    if (isRecord(port)) return [String(port.published ?? ''), String(port.target)];
    const parts = String(port).replace(/\/(tcp|udp)$/, '').split(':');
    return parts.length === 1 ? ['', parts[0]] : [parts[parts.length - 2], parts[parts.length - 1]];
  });
}

function buildOf(service: Service): { context: string; dockerfile: string } | undefined {
  const build = service.build;
  if (build === undefined) return undefined;
  if (typeof build === 'string') return { context: build, dockerfile: 'Dockerfile' };
  if (isRecord(build)) {
    return {
      context: typeof build.context === 'string' ? build.context : '.',
      dockerfile: typeof build.dockerfile === 'string' ? build.dockerfile : 'Dockerfile',
    };
  }
  throw new Error(`build must be a string or a mapping, got ${JSON.stringify(build)}`);
}

type Instruction = { keyword: string; args: string };

/** Dockerfile instructions with line continuations joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*#/.test(line) || (pending && line.trim() === '')) continue;
    const continued = /\\\s*$/.test(line);
    pending += continued ? `${line.replace(/\\\s*$/, '')} ` : line;
    if (continued) continue;
    const match = /^\s*(\w+)\s+([\s\S]*)$/.exec(pending.trim());
    if (match) instructions.push({ keyword: match[1].toUpperCase(), args: match[2].trim() });
    pending = '';
  }
  return instructions;
}

/** Exec form (`["npm", "run", "api"]`) or shell form, as one command line. */
function commandLine(args: string): string {
  if (args.startsWith('[')) {
    const parsed: unknown = JSON.parse(args);
    if (Array.isArray(parsed)) return parsed.map(String).join(' ');
  }
  return args;
}

function parseEnv(args: string): Record<string, string> {
  if (!args.includes('=')) {
    const [key, ...value] = args.split(/\s+/);
    return { [key]: value.join(' ') };
  }
  const env: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|'([^']*)'|(\S*))/g)) {
    env[match[1]] = match[3] ?? match[4] ?? match[5] ?? '';
  }
  return env;
}

type Stage = { name?: string; from: string; instructions: Instruction[] };

function stagesOf(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [from, as, name] = instruction.args.split(/\s+/);
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length) {
      stages[stages.length - 1].instructions.push(instruction);
    }
  }
  return stages;
}

/** ENV of a stage, including what it inherits from an earlier stage it is built FROM. */
function stageEnv(stages: Stage[], stage: Stage): Record<string, string> {
  const parent = stages.find((candidate) => candidate !== stage && candidate.name === stage.from);
  const env = parent ? stageEnv(stages, parent) : {};
  for (const instruction of stage.instructions) {
    if (instruction.keyword === 'ENV') Object.assign(env, parseEnv(instruction.args));
  }
  return env;
}

function npmScriptsIn(command: string): string[] {
  const scripts: string[] = [];
  for (const match of command.matchAll(/\bnpm\s+(?:run|run-script)\s+([\w:.-]+)/g)) scripts.push(match[1]);
  for (const match of command.matchAll(/\bnpm\s+(start|test|stop|restart)\b/g)) scripts.push(match[1]);
  return scripts;
}

const compose = loadCompose();
const dockerfile = parseDockerfile(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
const packageScripts: Record<string, string> = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;

test('docker-compose.yml defines the whole stack', (t) => {
  for (const name of REQUIRED_SERVICES) t.true(name in compose.services, `service ${name} is missing`);
});

test('every depends_on names a service defined in the file', (t) => {
  for (const [name, service] of Object.entries(compose.services)) {
    for (const dependency of dependsOn(service)) {
      t.true(dependency in compose.services, `${name} depends on undefined service ${dependency}`);
      t.not(dependency, name, `${name} depends on itself`);
    }
  }
  for (const name of APP_SERVICES) t.deepEqual(dependsOn(compose.services[name]).filter((d) => d === 'migrate'), ['migrate'], name);
});

test('every service has an image or a build whose context and Dockerfile exist', (t) => {
  for (const [name, service] of Object.entries(compose.services)) {
    const build = buildOf(service);
    t.true(typeof service.image === 'string' || build !== undefined, `${name} has neither image nor build`);
    if (!build) continue;
    const context = path.resolve(root, build.context);
    t.true(existsSync(context) && statSync(context).isDirectory(), `${name}: build context ${build.context} does not exist`);
    t.true(existsSync(path.resolve(context, build.dockerfile)), `${name}: ${build.dockerfile} does not exist in ${build.context}`);
  }
  for (const name of ['migrate', ...APP_SERVICES]) t.truthy(buildOf(compose.services[name]), `${name} is not built from the Dockerfile`);
});

test('every named volume is declared under the top-level volumes', (t) => {
  const used = Object.values(compose.services).flatMap(namedVolumesOf);
  t.true(used.length > 0);
  for (const volume of used) t.true(volume in compose.volumes, `volume ${volume} is not declared`);
});

test('the balancer publishes port 3000 for the api replicas, the intake alone SMTP, and every app service reaches Postgres and Temporal', (t) => {
  t.true(
    publishedPorts(compose.services['api-balancer']).some(([host, container]) => host === '3000' && container === '3000'),
    'api-balancer does not publish 3000:3000',
  );
  t.deepEqual(publishedPorts(compose.services.api), [], 'replicas cannot share a host port: the balancer publishes it');
  t.is(environmentOf(compose.services.api).TRUST_PROXY, 'true', 'behind the balancer, the client address comes from X-Forwarded-For');
  const intakeEnv = environmentOf(compose.services.intake);
  t.is(intakeEnv.SMTP_HOST, '0.0.0.0', 'the intake listens on every interface of its container');
  t.true(
    publishedPorts(compose.services.intake).some(([host, container]) => host === intakeEnv.SMTP_PORT && container === intakeEnv.SMTP_PORT),
    'intake does not publish its SMTP_PORT',
  );
  for (const name of ['api', 'worker']) {
    t.false(
      publishedPorts(compose.services[name]).some(([, container]) => container === intakeEnv.SMTP_PORT),
      `${name} publishes the SMTP port: the intake is a service of its own`,
    );
  }
  t.is(compose.services.intake.restart, 'unless-stopped');
  for (const name of APP_SERVICES) {
    const env = environmentOf(compose.services[name]);
    t.regex(env.DATABASE_URL ?? '', /^postgres(ql)?:\/\/[^@]+@postgres:5432\/invoicing$/, `${name}: DATABASE_URL`);
    t.is(env.TEMPORAL_ADDRESS, 'temporal:7233', `${name}: TEMPORAL_ADDRESS`);
  }
  t.regex(environmentOf(compose.services.migrate).DATABASE_URL ?? '', /@postgres:5432\/invoicing$/);
});

test('the commands of the Dockerfile and the compose services are npm scripts that exist', (t) => {
  const commands = dockerfile.filter((i) => ['RUN', 'CMD', 'ENTRYPOINT'].includes(i.keyword)).map((i) => commandLine(i.args));
  for (const service of Object.values(compose.services)) {
    const command = commandOf(service);
    if (command) commands.push(command);
  }
  const referenced = commands.flatMap(npmScriptsIn);
  t.true(referenced.length > 0);
  for (const script of referenced) t.true(script in packageScripts, `npm script "${script}" is not in package.json`);

  const cmd = dockerfile.filter((i) => i.keyword === 'CMD').at(-1);
  t.truthy(cmd, 'the Dockerfile has no CMD');
  t.deepEqual(npmScriptsIn(commandLine(cmd!.args)), ['api:compiled']);
  t.deepEqual(npmScriptsIn(commandOf(compose.services.migrate) ?? ''), ['migrate']);
  t.deepEqual(npmScriptsIn(commandOf(compose.services.worker) ?? ''), ['worker:compiled']);
  t.deepEqual(npmScriptsIn(commandOf(compose.services.intake) ?? ''), ['intake:compiled']);
});

test('the image runs the compiled parts that npm run build writes, the worker with its heap limits', (t) => {
  t.regex(packageScripts.build ?? '', /scripts\/bundle-workflows\.ts dist\/workflow-bundle\.js/);
  t.regex(packageScripts.build ?? '', /scripts\/build-parts\.ts dist\/run\b/);
  t.true(dockerfile.some((i) => i.keyword === 'RUN' && npmScriptsIn(commandLine(i.args)).includes('build')), 'the Dockerfile runs npm run build');
  for (const part of Object.keys(PART_ENTRIES)) {
    const script = packageScripts[`${part}:compiled`] ?? '';
    t.true(script.startsWith('node ') && script.endsWith(` --enable-source-maps dist/run/${part}.js`), `${part}:compiled runs dist/run/${part}.js on plain node: ${script}`);
    t.false(/tsx|webpack/.test(script), `${part}:compiled loads no tsx`);
  }
  t.true((packageScripts['worker:compiled'] ?? '').includes(DEFAULT_WORKER_V8_FLAGS), 'worker:compiled has the heap limits of npm start');
});

test('the Dockerfile installs with npm ci and the image listens on 0.0.0.0 as a non-root user', (t) => {
  const stages = stagesOf(dockerfile);
  t.true(stages.length > 0);
  for (const stage of stages) {
    const fromStage = stages.some((other) => other.name === stage.from);
    t.true(fromStage || stage.from === 'node:20-bookworm-slim', `unexpected base image ${stage.from}`);
  }
  const runs = dockerfile.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  t.true(runs.some((run) => /\bnpm ci\b/.test(run)), 'no RUN npm ci');
  for (const run of runs) t.notRegex(run, /\bnpm (install|i|add)\b/, `installs without the lockfile: ${run}`);

  const final = stages[stages.length - 1];
  const env = stageEnv(stages, final);
  t.is(env.HOST, '0.0.0.0');
  t.is(env.NODE_ENV, 'production');
  t.truthy(env.WORKFLOW_BUNDLE_PATH);
  // `npm run build` in WORKDIR /app writes dist/workflow-bundle.js (checked against package.json above).
  const bundleByBuild = path.posix.join('/app', /bundle-workflows\.ts (\S+)/.exec(packageScripts.build ?? '')?.[1] ?? '');
  const bundled = runs.some((run) => (run.includes('scripts/bundle-workflows.ts') && run.includes(env.WORKFLOW_BUNDLE_PATH)) || (/\bnpm run build\b/.test(run) && env.WORKFLOW_BUNDLE_PATH === bundleByBuild));
  t.true(bundled, 'WORKFLOW_BUNDLE_PATH is not the file the bundle step writes');
  const user = final.instructions.filter((i) => i.keyword === 'USER').at(-1);
  t.truthy(user, 'the image runs as root');
  t.false(['root', '0'].includes(user!.args.split(':')[0]), 'the image runs as root');
});

/** Bind mounts of a service as [host path relative to the repository, container path]. */
function bindMountsOf(service: Service): [string, string][] {
  const value = service.volumes;
  if (!Array.isArray(value)) return [];
  return value
    .map((mount) => (typeof mount === 'string' ? mount.split(':') : isRecord(mount) && mount.type === 'bind' ? [String(mount.source), String(mount.target)] : []))
    .filter((parts) => parts.length >= 2 && /^[./]/.test(parts[0]))
    .map((parts): [string, string] => [parts[0], parts[1]]);
}

/** The metrics port variables each app service's process reads (config/index.ts). */
const METRICS_PORT_VARIABLES: Record<string, string[]> = {
  api: ['METRICS_PORT'],
  worker: ['WORKER_METRICS_PORT', 'WORKER_SDK_METRICS_PORT'],
  intake: ['INTAKE_METRICS_PORT'],
};

test('Prometheus and Grafana run pinned images, mount files that exist, and keep their data in volumes', (t) => {
  for (const name of ['prometheus', 'grafana']) {
    const service = compose.services[name];
    t.truthy(service, `service ${name} is missing`);
    t.regex(String(service.image), /^[\w./-]+:v?\d+\.\d+\.\d+$/, `${name}: the image is pinned to a version`);
    const binds = bindMountsOf(service);
    t.true(binds.length > 0, `${name} mounts its configuration`);
    for (const [source] of binds) t.true(existsSync(path.resolve(root, source)), `${name}: ${source} does not exist`);
    t.true(namedVolumesOf(service).length > 0, `${name} keeps its data in a named volume`);
  }
  const prometheusConfig = bindMountsOf(compose.services.prometheus).find(([, target]) => target === '/etc/prometheus/prometheus.yml');
  t.truthy(prometheusConfig, 'prometheus.yml is mounted where --config.file points');
  t.true(String(commandOf(compose.services.prometheus)).includes('--config.file=/etc/prometheus/prometheus.yml'));
  const grafanaTargets = bindMountsOf(compose.services.grafana).map(([, target]) => target);
  for (const target of ['/etc/grafana/provisioning/datasources', '/etc/grafana/provisioning/dashboards', '/var/lib/grafana/dashboards']) {
    t.true(grafanaTargets.includes(target), `grafana mounts ${target}`);
  }
});

test('every Prometheus scrape target is an app service on one of its metrics ports, and every metrics port is scraped', (t) => {
  const source = bindMountsOf(compose.services.prometheus).find(([, target]) => target === '/etc/prometheus/prometheus.yml')![0];
  type ScrapeJob = { job_name: string; static_configs?: { targets: string[] }[]; dns_sd_configs?: { names: string[]; type: string; port: number }[] };
  const config = parse(readFileSync(path.resolve(root, source), 'utf8')) as { scrape_configs: ScrapeJob[] };
  // Replicated services are found by DNS (every replica's address), the others by name.
  const targets = config.scrape_configs.flatMap((job) => [
    ...(job.static_configs ?? []).flatMap((c) => c.targets),
    ...(job.dns_sd_configs ?? []).flatMap((c) => c.names.map((name) => `${name}:${c.port}`)),
  ]);
  for (const service of ['api', 'worker']) {
    const jobs = config.scrape_configs.filter((job) => job.static_configs?.some((c) => c.targets.some((target) => target.startsWith(`${service}:`))));
    t.deepEqual(jobs.map((job) => job.job_name), [], `${service} has replicas: scraping it by name reaches only one of them`);
  }
  t.true(targets.length > 0);
  for (const target of targets) {
    const [host, port] = target.split(':');
    t.true(host in METRICS_PORT_VARIABLES, `${target}: ${host} is not an app service`);
    const env = environmentOf(compose.services[host]);
    t.true(METRICS_PORT_VARIABLES[host].some((variable) => env[variable] === port), `${target}: no metrics port variable of ${host} is ${port}`);
  }
  for (const [service, variables] of Object.entries(METRICS_PORT_VARIABLES)) {
    const env = environmentOf(compose.services[service]);
    for (const variable of variables) t.true(targets.includes(`${service}:${env[variable]}`), `${service}'s ${variable} (${env[variable]}) is not scraped`);
    // Metrics stay inside the compose network: never published next to the API.
    for (const variable of variables) t.false(publishedPorts(compose.services[service]).some(([, container]) => container === env[variable]), `${service} publishes ${variable}`);
  }
});

test('Grafana provisions the Prometheus datasource and a dashboard provider whose path holds the dashboard', (t) => {
  const binds = Object.fromEntries(bindMountsOf(compose.services.grafana).map(([source, target]) => [target, source]));
  const datasourcesDir = path.resolve(root, binds['/etc/grafana/provisioning/datasources']);
  const datasources = parse(readFileSync(path.join(datasourcesDir, 'prometheus.yml'), 'utf8')) as { datasources: { type: string; url: string; uid: string }[] };
  t.like(datasources.datasources[0], { type: 'prometheus', url: 'http://prometheus:9090', uid: 'prometheus' });
  const providers = parse(readFileSync(path.resolve(root, binds['/etc/grafana/provisioning/dashboards'], 'invoicing.yml'), 'utf8')) as { providers: { options: { path: string } }[] };
  t.is(providers.providers[0].options.path, '/var/lib/grafana/dashboards');
  const dashboard = JSON.parse(readFileSync(path.resolve(root, binds['/var/lib/grafana/dashboards'], 'invoicing.json'), 'utf8')) as { uid: string; panels: { datasource?: { uid: string } }[] };
  t.truthy(dashboard.uid);
  t.true(dashboard.panels.length >= 10);
  for (const panel of dashboard.panels.filter((p) => p.datasource)) t.is(panel.datasource!.uid, 'prometheus');
});

test('two api and two worker replicas; Temporal and its UI are the versions npm run start:cluster provisions', (t) => {
  for (const name of ['api', 'worker']) {
    const deploy = compose.services[name].deploy as Record<string, unknown> | undefined;
    t.is(deploy?.replicas, 2, `${name} replicas`);
  }
  t.is(compose.services.temporal.image, `temporalio/server:${TEMPORAL_SERVER_VERSION}`);
  t.is(compose.services['temporal-schema'].image, `temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
  t.is(compose.services['temporal-namespace'].image, `temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
  t.is(compose.services['temporal-ui'].image, `temporalio/ui:${TEMPORAL_UI_SERVER_VERSION}`);
  for (const service of Object.values(compose.services)) {
    // Images pulled from a registry are pinned; invoicing:local is the one built here.
    if (typeof service.image === 'string' && buildOf(service) === undefined) t.regex(service.image, /:[\w.-]*\d[\w.-]*$/, `${service.image} is not pinned to a version`);
  }
  const temporalEnv = environmentOf(compose.services.temporal);
  t.is(temporalEnv.DB, 'postgres12');
  t.true(Number(temporalEnv.NUM_HISTORY_SHARDS) >= 4, 'at least 4 history shards');
  t.deepEqual(dependsOn(compose.services.temporal), ['temporal-schema']);
  const schemaCommand = commandOf(compose.services['temporal-schema']) ?? '';
  for (const step of ['create-database', 'setup-schema', 'update-schema', 'temporal_visibility']) t.true(schemaCommand.includes(step), `temporal-schema does not run ${step}`);
});

test('the Temporal server reads the dynamic config that npm run start:cluster runs', (t) => {
  const configPath = environmentOf(compose.services.temporal).DYNAMIC_CONFIG_FILE_PATH;
  t.truthy(configPath, 'DYNAMIC_CONFIG_FILE_PATH is not set: the image would read its empty docker.yaml');
  const mount = bindMountsOf(compose.services.temporal).find(([, target]) => target === configPath);
  t.truthy(mount, `nothing is mounted at ${configPath}`);
  const mounted: unknown = parse(readFileSync(path.resolve(root, mount![0]), 'utf8'));
  t.deepEqual(mounted, dynamicConfigDocument(CLUSTER_DYNAMIC_CONFIG));
});

test('the app starts after the default namespace and every search attribute the service uses are registered', (t) => {
  const command = commandOf(compose.services['temporal-namespace']) ?? '';
  t.regex(command, /namespace create --namespace default/);
  for (const key of Object.values(searchAttributes)) {
    const type = key.type === 'INT' ? 'Int' : 'Keyword';
    t.true(command.includes(`${key.name}:${type}`), `temporal-namespace does not register ${key.name} (${type})`);
  }
  for (const name of APP_SERVICES) t.true(dependsOn(compose.services[name]).includes('temporal-namespace'), `${name} starts before the namespace exists`);
});
