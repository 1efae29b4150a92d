import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { preloadedWorkflowModules, workflowsPath } from '../worker/create-worker';
import { parseShortAndJson, runMain, warnIfBusy } from './support/cli';
import { markdownTable } from './support/report';

/**
 * `npm run bench:workflow-replay [-- --short]`: the worker's CPU per workflow in the SDK's sandbox,
 * without a server: recorded histories of an upload's import (importFileWorkflowV3, a small file
 * of a company without DIAN settings) and of a delivery (webhookDeliveryWorkflowV3) are replayed
 * N times each, in a child process per variant, alternating the variants over the rounds:
 *
 * - the workflow modules evaluated per workflow (before session 38), or preloaded once
 *   (worker/create-worker.ts' preloadedWorkflowModules, as the worker runs them now);
 * - Node's source maps on (the worker runs with `--enable-source-maps`) or off: tried in session
 *   38 for the worker's threads and not kept (docs/performance.md); the variant stays to show it;
 * - the SDK's deadlock guard (vm's per-call `timeout`, a watchdog thread per call into the
 *   sandbox) on, as the worker runs, or off (bench/support/sandbox-deadline-off.cjs): what the
 *   guard costs a workflow (session 39; kept, docs/performance.md).
 *
 * A replay runs the workflow code and the SDK's activation path (its Rust core included) the way
 * a worker does, so the difference between variants is what each costs a workflow; the absolute
 * figure is not a workflow's whole cost on a server (no polling, no gRPC). Process CPU (user +
 * system) per replayed workflow, in the child, after one warm-up pass.
 */

const run = promisify(execFile);
const HISTORIES = {
  import: { directory: path.resolve(__dirname, '../test/workflows/histories/ingestion'), file: 'v3-import-no-dian-settings.binpb' },
  delivery: { directory: path.resolve(__dirname, '../test/workflows/histories'), file: 'v3-delivery-delivered-on-attempt-3.binpb' },
} as const;
type HistoryName = keyof typeof HISTORIES;
type Variant = { name: string; preload: boolean; sourceMaps: boolean; deadlockGuard: boolean };
const VARIANTS: Variant[] = [
  { name: 'modules per workflow (before session 38)', preload: false, sourceMaps: true, deadlockGuard: true },
  { name: 'modules preloaded (the worker now)', preload: true, sourceMaps: true, deadlockGuard: true },
  { name: 'modules preloaded, source maps off (tried, not kept)', preload: true, sourceMaps: false, deadlockGuard: true },
  { name: 'modules preloaded, no deadlock watchdog (measured, not kept)', preload: true, sourceMaps: true, deadlockGuard: false },
];
const SANDBOX_DEADLINE_OFF = path.resolve(__dirname, 'support/sandbox-deadline-off.cjs');

/** In the child: replays `count` copies of the history and prints CPU ms per workflow. */
async function replayInChild(historyName: HistoryName, count: number, preload: boolean, sourceMaps: boolean): Promise<void> {
  // Set here, not by a flag: tsx turns source maps on in the process it loads into.
  process.setSourceMapsEnabled(sourceMaps);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const { directory, file } = HISTORIES[historyName];
  const history = temporal.api.history.v1.History.decode(await readFile(path.join(directory, file)));
  const taskQueue = history.events[0]?.workflowExecutionStartedEventAttributes?.taskQueue?.name ?? undefined;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: [workflowsPath],
    ...(preload ? { preloadModules: preloadedWorkflowModules } : {}),
    logger: new DefaultLogger('WARN'),
  });
  const options = { workflowBundle, taskQueue } as unknown as ReplayWorkerOptions;
  const replay = async (label: string, n: number) => {
    const histories = Array.from({ length: n }, (_, index) => ({ workflowId: `${label}-${index}`, history }));
    for await (const result of Worker.runReplayHistories(options, histories)) if (result.error) throw result.error;
  };
  await replay('warm-up', Math.ceil(count / 5));
  const before = process.cpuUsage();
  await replay('measured', count);
  const used = process.cpuUsage(before);
  console.log(JSON.stringify({ cpuMsPerWorkflow: (used.user + used.system) / 1000 / count }));
}

async function measure(historyName: HistoryName, variant: Variant, count: number): Promise<number> {
  const guard = variant.deadlockGuard ? [] : ['--require', SANDBOX_DEADLINE_OFF];
  const args = [...guard, '--import', 'tsx', __filename, '--child', historyName, String(count), variant.preload ? 'preload' : 'per-workflow', variant.sourceMaps ? 'maps-on' : 'maps-off'];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return (JSON.parse(line) as { cpuMsPerWorkflow: number }).cpuMsPerWorkflow;
}

async function main(): Promise<number> {
  const childIndex = process.argv.indexOf('--child');
  if (childIndex >= 0) {
    const [historyName, count, modules, maps] = process.argv.slice(childIndex + 1);
    await replayInChild(historyName as HistoryName, Number(count), modules === 'preload', maps === 'maps-on');
    return 0;
  }
  const { short, jsonPath } = parseShortAndJson(process.argv.slice(2), process.env);
  const log = (line: string) => console.error(`[bench:workflow-replay] ${line}`);
  warnIfBusy(log, 1.5);
  for (const { directory, file } of Object.values(HISTORIES)) {
    if (!(await readdir(directory)).includes(file)) throw new Error(`missing recorded history ${file} in ${directory}`);
  }
  const count = short ? 300 : 1000;
  const rounds = short ? 2 : 3;
  const results: Record<string, Record<string, number[]>> = {};
  for (let round = 1; round <= rounds; round += 1) {
    for (const historyName of Object.keys(HISTORIES) as HistoryName[]) {
      for (const variant of VARIANTS) {
        const cpu = await measure(historyName, variant, count);
        ((results[historyName] ??= {})[variant.name] ??= []).push(cpu);
        log(`round ${round}, ${historyName}, ${variant.name}: ${cpu.toFixed(2)} CPU ms per workflow`);
      }
    }
  }
  const rows = VARIANTS.map((variant) => [
    variant.name,
    ...(Object.keys(HISTORIES) as HistoryName[]).map((historyName) => results[historyName]![variant.name]!.map((cpu) => cpu.toFixed(2)).join(' / ')),
  ]);
  console.log(markdownTable([`CPU ms per replayed workflow (${count} each, ${rounds} rounds)`, 'import (v3, no DIAN settings)', 'delivery (v3, delivered on attempt 3)'], rows, [false, true, true]));
  if (jsonPath) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(jsonPath, JSON.stringify({ count, rounds, results }, null, 2));
  }
  return 0;
}

runMain(main);
